package jsonx

import (
	"slices"
	"sync"
	"unsafe"
)

// Index is the structural index of one validated document (a tape): each
// of its values and keys, in document order, with where it ends and whether
// a string holds escapes, and how many bytes of string literals hold
// escapes.
//
// Decoders walk a document level by level. Finding where a member ends by
// scanning it would scan a message's text once for every level above it,
// and once more to find its closing quote; instead the validating pass
// records every value, so a walk through an arena that holds the index
// (IndexedArena, Arena.IndexEvent) reads the members of an object from it
// and every byte is scanned about once. The zero Index is ready for
// Arena.IndexEvent; IndexDocument takes one from a pool.
type Index struct {
	base   *byte // the document's first byte
	size   int   // the document's length
	tokens []valueToken
	cursor int // the token found last: lookups ask for the same or a following one
	// walked is the container whose walk started last: a decoder that
	// peeks at an object's first members and then walks it whole looks it
	// up again, behind the cursor.
	walked int
	// met holds the last containers a walk yielded (as a ring, metN
	// counting them): a decoder that collects an object's members before
	// reading them walks those containers next, behind the cursor.
	met  [4]int32
	metN uint8

	// escapedBytes is the length of the document's string literals that
	// hold escapes: room enough for all its unescaped strings.
	escapedBytes int

	// prev is a copy of the first bytes of the stream event indexed last
	// (keepPrefix), when it was valid, and empty otherwise: the next
	// event's scan resumes within the prefix the two share (reuse.go).
	prev []byte
	// shared is how many bytes the event indexed last shares with the
	// one before, which x.prev then holds already; last is where its
	// scan resumed.
	shared int
	last   resumePoint
}

// valueToken is one value or object key of a document: its bytes (for a
// container, from its bracket to just past the closing one) as offsets in
// the document, and the index of the token after it and everything in it.
type valueToken struct {
	start, end int32
	skip       int32
	// esc says whether a string literal holds escapes, and whether one
	// escapes a surrogate.
	esc escapes
}

// indexPool recycles indexes between documents: an index is only needed
// while its document is decoded.
var indexPool = sync.Pool{New: func() any { return new(Index) }}

// maxPooledTokens bounds the index kept in the pool, so that one huge
// document does not pin its index's memory.
const maxPooledTokens = 1 << 16

// IndexDocument validates s, as Valid does, and returns its index, or nil
// when s is not valid JSON. The index refers to s, which must not change
// while it is used. The caller gives the index back with Release once the
// walks of s are over.
func IndexDocument(s string) *Index {
	x := indexPool.Get().(*Index)
	if !x.build(s) {
		x.Release()
		return nil
	}
	return x
}

// build validates s and makes x its index, reporting whether s is valid.
func (x *Index) build(s string) bool {
	x.prev = x.prev[:0]
	if !scanJSON(s, x, false) {
		return false
	}
	x.base, x.size, x.cursor, x.walked = unsafe.StringData(s), len(s), 0, 0
	return true
}

// buildEvent is build for the next event of a stream: the scan resumes
// within the prefix s shares with the event x indexed last, if any, and
// the start of s is kept for the next event. The index is the one build
// would make.
func (x *Index) buildEvent(s string) bool {
	reuse := len(x.prev) > 0
	if !scanJSON(s, x, reuse) {
		x.prev, x.last.k = x.prev[:0], 0
		return false
	}
	x.base, x.size, x.cursor, x.walked = unsafe.StringData(s), len(s), 0, 0
	x.keepPrefix(s)
	return true
}

// Release gives an index from IndexDocument back to the pool that
// IndexDocument takes indexes from, so that the next document reuses its
// memory; x must not be used afterwards, nor any arena that holds it. A
// nil x is ignored.
func (x *Index) Release() {
	if x == nil {
		return
	}
	x.base = nil
	if cap(x.tokens) > maxPooledTokens {
		return
	}
	indexPool.Put(x)
}

// find returns the index of the token of the value (or key) starting at
// s[i], if s is part of x's document, and the offset of s in it.
func (x *Index) find(s string, i int) (k, base int, ok bool) {
	base = int(uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(x.base)))
	off := base + i
	if base < 0 || off >= x.size {
		return 0, 0, false
	}
	tokens := x.tokens
	k = x.cursor
	switch {
	case k < len(tokens) && int(tokens[k].start) == off:
	case k+1 < len(tokens) && int(tokens[k+1].start) == off:
		k++
	case k+2 < len(tokens) && int(tokens[k+2].start) == off:
		k += 2 // past a key
	case x.walked < len(tokens) && int(tokens[x.walked].start) == off:
		k = x.walked
	case k < len(tokens) && lookupAfter(tokens, int(tokens[k].skip), off) >= 0:
		// Past a container the walk did not enter (an object's last
		// member that was an array, say), or past its key too.
		k = lookupAfter(tokens, int(tokens[k].skip), off)
	case x.metAt(off) >= 0:
		k = x.metAt(off)
	default:
		var found bool
		k, found = slices.BinarySearchFunc(tokens, off, func(t valueToken, off int) int { return int(t.start) - off })
		if !found {
			return 0, 0, false
		}
	}
	x.cursor = k
	if int(tokens[k].skip) > k+1 {
		x.walked = k
	}
	return k, base, true
}

// end returns the index in s just past the value starting at s[i], if s
// is part of x's document.
func (x *Index) end(s string, i int) (int, bool) {
	k, base, ok := x.find(s, i)
	if !ok {
		return 0, false
	}
	return int(x.tokens[k].end) - base, true
}

// scanString is validString for scanJSON: it also records the literal in
// the index (x may be nil), counting its bytes when it holds escapes.
func (x *Index) scanString(s string, i int) int {
	start := i
	end, esc := validString(s, i)
	if x != nil && end >= 0 {
		if esc != 0 {
			x.escapedBytes += end - start
		}
		x.add(start, end, esc)
	}
	return end
}

// openAt records the container starting at start, whose end its close
// fills in, and pushes its token's index on open (x may be nil).
func (x *Index) openAt(start int, open []int32) []int32 {
	if x == nil {
		return open
	}
	open = append(open, int32(len(x.tokens)))
	x.tokens = append(x.tokens, valueToken{start: int32(start), end: -1})
	return open
}

// add records the scalar value or key s[start:end] (x may be nil).
func (x *Index) add(start, end int, esc escapes) {
	if x != nil {
		x.tokens = append(x.tokens, valueToken{start: int32(start), end: int32(end), skip: int32(len(x.tokens) + 1), esc: esc})
	}
}

// text returns the document's bytes from start to end, offsets of one of
// its tokens. Built from the document's base rather than sliced from the
// walked text, it costs no bounds check: the validating pass made the
// offsets, and they lie within the document (the walk's text is a view
// of it, found by find).
func (x *Index) text(start, end int32) string {
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(x.base), start)), end-start)
}

// lookupAfter returns k or k+1 (past a key) when that token starts at
// off, else -1.
func lookupAfter(tokens []valueToken, k, off int) int {
	switch {
	case k < len(tokens) && int(tokens[k].start) == off:
		return k
	case k+1 < len(tokens) && int(tokens[k+1].start) == off:
		return k + 1
	}
	return -1
}

// meet records that a walk yielded the container whose token is k.
func (x *Index) meet(k int32) {
	x.met[x.metN&3] = k
	x.metN++
}

// metAt returns the token of a container a walk yielded lately that
// starts at off, or -1.
func (x *Index) metAt(off int) int {
	for _, k := range x.met {
		if int(k) < len(x.tokens) && int(x.tokens[k].start) == off {
			return int(k)
		}
	}
	return -1
}
