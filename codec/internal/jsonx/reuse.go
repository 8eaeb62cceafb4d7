package jsonx

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Prefix reuse: consecutive events of one stream share a prefix (a Chat
// chunk repeats its id, object, created, model, fingerprint and the
// members before its delta's text; an Anthropic content_block_delta
// everything before its text), whose bytes were validated and indexed, the
// same way, for the previous event. Arena.IndexEvent therefore keeps a
// copy of the previous event's first bytes beside its tape, and the next
// event's scan starts at the last token of the tape that starts within the
// prefix the two share, keeping the tokens before it.
//
// The rules that make this exact. A token starts where the scanner
// expects a value or a key, and the tokens before it, and the scanner's
// state there, depend only on the bytes before it: each of those tokens
// ended where a comma, a colon or a bracket followed, before the start,
// so no number, literal or string could have read on past the prefix.
// Two states are told apart by the next byte, which the prefix need not
// share: after a container's opening bracket the scanner expects a member
// or the close, so a container's first member is a resume point only when
// its first byte is shared too; and whitespace is skipped before a value
// or key is expected, so the resumed scan first skips any whitespace s
// has where the previous event's token started. Everything after the
// resume point is scanned anew, the close of every container open there
// included, which writes its end.
//
// The state is rebuilt from the previous tape rather than saved during the
// scan, which would cost the scan of every document: the open containers
// are found by descending from the root through the tape's skips, and the
// escaped bytes of the kept tokens are the previous count less those of
// the tokens dropped.

// maxReusedPrefix bounds the copy of an event kept for the next one: a
// stream's events share their first hundred or few hundred bytes (a Chat
// chunk's text starts about 250 bytes in), and copying a large event whole
// would cost more than the reuse saves.
const maxReusedPrefix = 1024

// resumePoint is where an event's scan resumed on the previous event's
// tape: its token (0 when the scan started from the beginning, or when
// more containers than open holds were open there), whether a key was
// expected there, the containers open there and the escaped bytes of the
// tokens before it. The scan that resumed there rebuilt the tape from
// that token on and kept the tokens before it, its ancestors among them,
// so all of this still holds of the tape it made: the next event of the
// same kind (text delta after text delta) resumes at the same token,
// found again in a few comparisons instead of a descent through the tape.
type resumePoint struct {
	k     int32
	key   bool
	depth uint8
	esc   int
	// open holds the containers in place, so that a stream's decoder
	// allocates nothing for them: events nest a few levels deep.
	open [8]int32
}

// reset empties x for a scan of a document from its start.
func (x *Index) reset() {
	x.tokens, x.escapedBytes, x.last.k, x.shared = x.tokens[:0], 0, 0, 0
}

// keepPrefix records s, just indexed into x, for the next event's resume:
// its bytes up to the first byte of its last token (no later resume point
// exists), at most maxReusedPrefix of them. The first byte is kept too, so
// that the next event can share it: a container's first member is a
// resume point only then, and the last resume point is found again only
// then (resume). The bytes s shares with the previous event are already
// there.
func (x *Index) keepPrefix(s string) {
	n := 0
	if len(x.tokens) > 1 {
		n = min(int(x.tokens[len(x.tokens)-1].start)+1, maxReusedPrefix)
	}
	m := min(x.shared, n, len(x.prev))
	if cap(x.prev) < n {
		// Room for longer events than this one, so that a stream
		// allocates its copy once.
		grown := make([]byte, m, min(max(2*n, 256), maxReusedPrefix))
		copy(grown, x.prev[:m])
		x.prev = grown
	}
	x.prev = append(x.prev[:m], s[m:n]...)
}

// resume prepares x to index s from a token of the previous event's tape
// where s's scan may resume (see above): it returns where in s that token
// starts, whether a key is expected there, and open with the tokens of
// the containers open there, outermost first, appended; it keeps the
// tokens before it and their escaped bytes. When no token past the root
// lies in the shared prefix it returns 0 with x emptied, for a scan from
// the start.
func (x *Index) resume(s string, open []int32) (i int, key bool, _ []int32) {
	n := commonPrefix(s, x.prev)
	x.shared = n
	tokens := x.tokens
	// The last resume point, if it is still the last token within the
	// shared prefix: a leaf, starting before the first byte that differs
	// (so that it may be a container's first member), with nothing after
	// it starting within the prefix (so that the descent would find it).
	if k := int(x.last.k); k > 0 && int(tokens[k].start) < n && int(tokens[k].skip) == k+1 && (k+1 == len(tokens) || int(tokens[k+1].start) > n) {
		i = int(tokens[k].start)
		x.tokens, x.escapedBytes = tokens[:k], x.last.esc
		return i, x.last.key, append(open, x.last.open[:x.last.depth]...)
	}
	first := len(open)
	k, key, open := x.resumeToken(int32(n), open)
	if k == 0 {
		x.tokens, x.escapedBytes, x.last.k = tokens[:0], 0, 0
		return 0, false, open
	}
	i = int(tokens[k].start)
	dropped := 0
	for _, t := range tokens[k:] {
		if t.esc != 0 {
			dropped += int(t.end - t.start)
		}
	}
	x.tokens, x.escapedBytes = tokens[:k], x.escapedBytes-dropped
	x.last.k = 0
	if path := open[first:]; len(path) <= len(x.last.open) {
		x.last.k, x.last.key, x.last.esc, x.last.depth = int32(k), key, x.escapedBytes, uint8(len(path))
		copy(x.last.open[:], path)
	}
	return i, key, open
}

// resumeToken finds resume's token: the last one of the previous tape that
// starts within the first n bytes, the prefix s shares with the previous
// event, descending into a container only when its first member's first
// byte is shared too. That byte must be: after a container's opening
// bracket the scanner expects a member or the close (an empty container),
// and only a byte that is not a bracket tells it which; after a comma or
// a colon it expects a value or a key and nothing else.
func (x *Index) resumeToken(n int32, open []int32) (k int, key bool, _ []int32) {
	tokens := x.tokens
	if len(tokens) < 2 || tokens[0].skip == 1 || tokens[1].start >= n {
		return 0, false, open // a scalar or empty document, or none of it shared
	}
	c := int32(0) // the container descended into: its first member starts within the prefix
	for {
		open = append(open, c)
		stop := tokens[c].skip
		t := c + 1 // the last member (its key, in an object) that starts within the prefix
		v := t     // its value
		if x.prev[tokens[c].start] == '{' {
			for next := tokens[t+1].skip; next < stop && tokens[next].start <= n; next = tokens[t+1].skip {
				t = next
			}
			v = t + 1
			if tokens[v].start > n {
				return int(t), true, open
			}
		} else {
			for next := tokens[t].skip; next < stop && tokens[next].start <= n; next = tokens[t].skip {
				t = next
			}
			v = t
		}
		if tokens[v].skip == v+1 || tokens[v+1].start >= n {
			return int(v), false, open
		}
		c = v
	}
}

// commonPrefix returns the length of the longest common prefix of s and p,
// sixteen bytes at a time, and the last few bytes as one word that
// overlaps bytes already compared.
func commonPrefix(s string, p []byte) int {
	n := min(len(s), len(p))
	a, b := unsafe.StringData(s), unsafe.SliceData(p)
	i := 0
	for ; i+16 <= n; i += 16 {
		d := word(a, i) ^ word(b, i)
		e := word(a, i+8) ^ word(b, i+8)
		if d|e != 0 {
			if d != 0 {
				return i + bits.TrailingZeros64(d)/8
			}
			return i + 8 + bits.TrailingZeros64(e)/8
		}
	}
	if i+8 <= n {
		if d := word(a, i) ^ word(b, i); d != 0 {
			return i + bits.TrailingZeros64(d)/8
		}
		i += 8
	}
	if i < n && n >= 8 {
		// The bytes before i are equal: the first that differs in the
		// word ending at n is at or after i.
		if d := word(a, n-8) ^ word(b, n-8); d != 0 {
			return n - 8 + bits.TrailingZeros64(d)/8
		}
		return n
	}
	for i < n && s[i] == p[i] {
		i++
	}
	return i
}

// word reads the eight bytes at p+i as a little-endian word, without a
// bounds check: the caller guarantees that they are readable.
func word(p *byte, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(p), i))[:])
}
