package jsonx

import (
	"iter"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Arena holds the unescaped strings of one decoded document.
//
// gjson unescapes every string value that contains an escape (\n, \", ...)
// into two fresh allocations; conversation text is full of them. The arena
// instead unescapes them into one buffer sized from the document, so a
// request costs one allocation for all its text. Strings handed out are views
// of the buffer; it is only ever appended to, so they stay valid (and the
// buffer alive) for as long as they are referenced. The zero Arena is ready
// to use: it sizes its buffer from the first string it unescapes and walks
// documents without an index.
type Arena struct {
	buf  []byte
	size int // capacity to allocate on first use

	// index, when set, is the structural index of the document the
	// arena's strings come from (see Index).
	index *Index
}

// NewArena returns an arena whose buffer, allocated on first use, holds n
// bytes. For a document, n is the length of its escaped string literals
// (IndexedArena does this), since no string unescapes to more than its
// literal; a stream decoder passes the size of a typical event.
func NewArena(n int) Arena { return Arena{size: n} }

// IndexedArena returns the arena for the document x indexes: its buffer is
// sized from the document's escaped literals, and walks of the document
// through the arena (Members, ValueAt, ValueEnd) read the
// members' extents from x instead of scanning their bytes.
func IndexedArena(x *Index) Arena {
	a := NewArena(x.escapedBytes)
	a.index = x
	return a
}

// Reserve makes the buffer the arena allocates next hold at least n bytes.
// A stream decoder reserves the length of each event: no string of the
// event unescapes to more, so one buffer holds all of them.
func (a *Arena) Reserve(n int) {
	if n > a.size {
		a.size = n
	}
}

// Reset forgets the arena's strings, so that its buffer is reused, and the
// index of the previous document. Only stream decoders reset an arena: the
// strings of an event need to stay valid only until the next event.
func (a *Arena) Reset() { a.buf, a.index = a.buf[:0], nil }

// IndexEvent validates s, the data of one stream event, and reports whether
// it is valid JSON. It records the event's structure in x (the decoder's own
// index, reused from event to event) and makes x the arena's index, for the
// walks over the event that follow.
//
// Consecutive events of a stream share a long prefix, which x already
// validated and indexed for the previous event: x keeps a copy of that
// event's first bytes (at most maxReusedPrefix), and the scan of s resumes
// at the last token that starts within the prefix s shares with them,
// keeping the tokens before it. The result, valid or not and the index
// itself, is exactly what a scan of s from its start gives, whatever
// document x indexed before: what it compares s with is its own copy,
// never the previous event's buffer, which the caller may have reused for
// s (FuzzIndexEventReuse holds the two scans to each other).
func (a *Arena) IndexEvent(s string, x *Index) bool {
	if !x.buildEvent(s) {
		a.index = nil
		return false
	}
	a.index = x
	return true
}

// Unescape returns the body s of a JSON string literal (without its quotes)
// unescaped, as a view of the arena's buffer. s must come from a document
// that passed Valid: invalid escapes are not checked, and a lone surrogate
// escape becomes U+FFFD as in encoding/json. A nil arena allocates the
// string (see Members).
func (a *Arena) Unescape(s string) string {
	if a == nil {
		return BytesToString(appendUnescaped(make([]byte, 0, len(s)+16), s))
	}
	if cap(a.buf)-len(a.buf) < len(s)+16 {
		n := a.size + 16 // appendUnescaped's room
		if n < len(s)+16 {
			n = len(s) + 16
		}
		a.buf = make([]byte, 0, n)
	}
	start := len(a.buf)
	a.buf = appendUnescaped(a.buf, s)
	return BytesToString(a.buf[start:len(a.buf):len(a.buf)])
}

// Members returns the walk of the members of raw, an object or array of a
// validated document (leading whitespace is skipped), in order: each
// object member's key, unescaped into a, and value, and each array
// element with an empty key. A scalar raw is yielded itself with an empty
// key, and empty raw yields nothing, as gjson.Result.ForEach does.
//
// This is the engine's one walk of a container: every decoder reads its
// objects and arrays with it. When a has an index of raw's document
// (IndexedArena, Arena.IndexEvent), the members' extents are read from the
// index; raw that is not part of that document (a stored copy, an
// unescaped string) is walked from its bytes. A nil a walks without an
// index and allocates each unescaped string, as gjson does, for a caller
// that has no arena at hand. Through an arena the walk allocates nothing
// per member, and a value is only parsed when the loop asks for it
// (Value.Result).
func Members(raw string, a *Arena) iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		// One call of yield, so that the loop's body is inlined here.
		var m memberIter
		if !m.init(raw, a) {
			return
		}
		for {
			key, value, ok := m.next()
			if !ok || !yield(key, Value{Raw: value, a: m.a, esc: m.esc}) {
				return
			}
		}
	}
}

// Value is one value met in a walk of Members: its JSON text, parsed only
// when the loop asks for it, so that a walk that skips most members (or
// reads a member's raw text) pays nothing for the values it does not read.
type Value struct {
	// Raw is the value's JSON text, a view of the walked document.
	Raw string

	a *Arena
	// esc tells whether Raw is a string literal that holds escapes, and
	// whether one escapes a surrogate, which the walk finds along with its
	// extent.
	esc escapes
}

// Result builds the value's gjson.Result as Arena.Result does: a string
// is unescaped into the walk's arena only when it holds escapes, a
// container is left unparsed for a walk of its own.
func (v Value) Result() gjson.Result { return v.a.valueResult(v.Raw, v.esc != 0) }

// Escaped reports whether the value is a string literal that holds
// escapes, which the walk found along with its extent: a decoder that
// moves the literal instead of reading its text needs no search for a
// backslash.
func (v Value) Escaped() bool { return v.esc != 0 }

// Copyable reports whether the value is a string literal whose escapes
// may be copied in place of its text by an encoder that escapes JSON
// strings as encoding/json does: it holds escapes, and none of a UTF-16
// surrogate (a lone one unescapes to U+FFFD, a pair to a character
// escaping would not write as an escape). Whether its bytes are valid
// UTF-8 is left to the caller. The validating pass found this along with
// the literal's extent.
func (v Value) Copyable() bool { return v.esc == escSome }

// Shallow is Result without unescaping: a string's Str is the literal's
// body with its escapes intact. It is for a decoder that reads a member's
// type and raw text now and its text, if at all, later (through Value).
func (v Value) Shallow() gjson.Result {
	if v.Raw[0] != '"' {
		return v.a.Result(v.Raw)
	}
	return gjson.Result{Type: gjson.String, Raw: v.Raw, Str: v.Raw[1 : len(v.Raw)-1]}
}

// valueResult is Value.Result out of line, so that Result itself is
// inlined at every member a decoder reads; a string, the commonest value,
// is built here rather than through StringValue, a call less.
func (a *Arena) valueResult(raw string, escaped bool) gjson.Result {
	if raw[0] != '"' {
		return a.Result(raw)
	}
	r := gjson.Result{Type: gjson.String, Raw: raw, Str: raw[1 : len(raw)-1]}
	if escaped {
		r.Str = a.Unescape(r.Str)
	}
	return r
}

// memberIter walks the members of one object or array of a validated
// document: init starts the walk, next returns one member at a time. It is
// the loop under Members. The zero memberIter is ready for init.
type memberIter struct {
	raw string
	a   *Arena
	i   int
	obj bool

	// esc tells whether the value next returned last is a string
	// literal that holds escapes, and whether one escapes a surrogate.
	esc escapes

	// x, when the arena's index holds raw's document, is that index:
	// the walk reads the members from its tokens, from t up to stop, with
	// base the offset of raw in the document. Otherwise it reads raw's
	// bytes from i.
	x       *Index
	t, stop int32
	base    int
}

// init starts a walk of the members of raw, a value of a document that
// passed Valid and that a's strings come from (leading whitespace is
// skipped), and reports whether raw holds a value. A scalar is walked as
// if it were the only element of an array: next returns it once, then
// finds the end of raw. When a has an index of the document, the walk of
// an object or array reads the members from it.
func (m *memberIter) init(raw string, a *Arena) bool {
	i := SkipSpace(raw, 0)
	if i == len(raw) {
		return false
	}
	// Field by field: a composite literal is built on the stack and
	// copied in 16-byte moves that stall on the stores just made, a
	// tenth of a stream event's decoding.
	m.raw, m.a, m.i, m.obj, m.esc = raw, a, i+1, raw[i] == '{', 0
	m.x, m.t, m.stop, m.base = nil, 0, 0, 0
	if raw[i] != '{' && raw[i] != '[' {
		m.i = i
		return true
	}
	if a != nil && a.index != nil {
		if k, base, ok := a.index.find(raw, i); ok {
			m.x, m.t, m.stop, m.base = a.index, int32(k+1), a.index.tokens[k].skip, base
		}
	}
	return true
}

// next returns the next member's key (unescaped into the arena; empty in
// an array) and its raw JSON value, or ok false once the container ends.
func (m *memberIter) next() (key, value string, ok bool) {
	if x := m.x; x != nil {
		if m.t >= m.stop {
			return "", "", false
		}
		if m.obj {
			k := &x.tokens[m.t]
			key = x.text(k.start+1, k.end-1)
			if k.esc != 0 {
				key = m.a.Unescape(key)
			}
			m.t++
		}
		// A walk into the value looks it up next: it is where the
		// index's cursor now is.
		x.cursor = int(m.t)
		v := &x.tokens[m.t]
		if v.skip > m.t+1 {
			x.meet(m.t)
		}
		m.t, m.esc = v.skip, v.esc
		return key, x.text(v.start, v.end), true
	}
	raw, i := m.raw, m.i
	for {
		i = SkipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' || raw[i] == ']' {
			m.i = i
			return "", "", false
		}
		if raw[i] != ',' {
			break
		}
		i++
	}
	if m.obj {
		key, i = m.a.key(raw, i)
		i = SkipSpace(raw, i) + 1 // past the colon
		i = SkipSpace(raw, i)
	}
	end := m.a.ValueEnd(raw, i)
	m.i = end
	m.esc = 0
	if raw[i] == '"' && strings.IndexByte(raw[i:end], '\\') >= 0 {
		// Whether an escape is of a surrogate is not looked for here,
		// outside an indexed document: a literal is taken to hold one,
		// so that it is unescaped rather than copied.
		m.esc = escSurrogate
	}
	return key, raw[i:end], true
}

// key reads the object key whose literal starts at s[i] and returns it
// (unescaped into a if need be) and the index just past it. Keys are short
// and almost never escaped, so a plain loop beats a vectorised search.
func (a *Arena) key(s string, i int) (string, int) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			return s[i+1 : j], j + 1
		case '\\':
			end := StringEnd(s, i)
			return a.Unescape(s[i+1 : end-1]), end
		}
	}
	return s[i+1:], len(s)
}

// Lookup returns the value of the first member of raw named key, as
// gjson.Get(raw, key) does for a key without path syntax: raw must be an
// object of a validated document that a's strings come from (leading
// whitespace is skipped), keys are compared unescaped, and the zero Result
// is returned when raw is not an object or has no such member. Through an
// arena with the document's index it reads the members from the index, so
// a lookup of an object's first member costs no scan of the object, where
// gjson.Get reads its bytes.
func Lookup(raw string, a *Arena, key string) gjson.Result {
	var m memberIter
	if i := SkipSpace(raw, 0); i == len(raw) || raw[i] != '{' || !m.init(raw, a) {
		return gjson.Result{}
	}
	for k, v, ok := m.next(); ok; k, v, ok = m.next() {
		if k == key {
			return a.valueResult(v, m.esc != 0)
		}
	}
	return gjson.Result{}
}

// CountMembers returns the number of members of the object or array v of
// a's document (0 for a scalar), skipping their values without parsing
// them, so that a decoder can size its slices before it reads them.
func CountMembers(v gjson.Result, a *Arena) int {
	var m memberIter
	if i := SkipSpace(v.Raw, 0); i == len(v.Raw) || (v.Raw[i] != '{' && v.Raw[i] != '[') || !m.init(v.Raw, a) {
		return 0
	}
	n := 0
	for _, _, ok := m.next(); ok; _, _, ok = m.next() {
		n++
	}
	return n
}

// Result builds the gjson.Result of raw, one JSON value of a document that
// passed Valid, as gjson.Parse would, without gjson's checks: a string is
// unescaped into the arena when it holds escapes, a container is left
// unparsed, and small non-negative integers are converted without a call.
func (a *Arena) Result(raw string) gjson.Result {
	switch raw[0] {
	case '"':
		return a.StringResult(raw)
	case '{', '[':
		// What gjson.Parse would make of it, without its checks.
		return gjson.Result{Type: gjson.JSON, Raw: raw}
	case 'n':
		return gjson.Result{Type: gjson.Null, Raw: raw}
	case 't':
		return gjson.Result{Type: gjson.True, Raw: raw}
	case 'f':
		return gjson.Result{Type: gjson.False, Raw: raw}
	}
	// Small non-negative integers (indexes, token counts) are most
	// numbers in a stream.
	if len(raw) <= 15 {
		n := 0
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			if c < '0' || c > '9' {
				return gjson.Parse(raw)
			}
			n = n*10 + int(c-'0')
		}
		return gjson.Result{Type: gjson.Number, Raw: raw, Num: float64(n)}
	}
	return gjson.Parse(raw)
}

// StringResult builds the gjson.Result of raw, a string literal of a
// document that passed Valid, unescaping it into the arena when it holds
// escapes.
func (a *Arena) StringResult(raw string) gjson.Result {
	return a.StringValue(raw, strings.IndexByte(raw[1:len(raw)-1], '\\') >= 0)
}

// StringValue is StringResult for a literal whose escapes are known
// (a walk of Members finds them along with the literal), which saves the
// search for a backslash.
func (a *Arena) StringValue(raw string, escaped bool) gjson.Result {
	r := gjson.Result{Type: gjson.String, Raw: raw, Str: raw[1 : len(raw)-1]}
	if escaped {
		r.Str = a.Unescape(r.Str)
	}
	return r
}

// SkipSpace returns the index of the first byte of s at or after i that is
// not JSON whitespace, or len(s). Only space, tab, line feed and carriage
// return are whitespace (RFC 8259): Valid relies on this, and a control byte
// accepted as whitespace would be copied into raw values and make the JSON
// written from them invalid.
func SkipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		return i
	}
	return i
}

// StringEnd returns the index just past the string literal that starts
// at s[i] (its opening quote), or len(s) when it is not closed. The literal
// must be valid, as in a document that passed Valid.
// Conversation text is most of a request, so the closing quote is found
// with a vectorised search, and a quote is the end unless an odd number of
// backslashes precedes it.
func StringEnd(s string, i int) int {
	for i++; i < len(s); {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			return len(s)
		}
		i += q
		n := 0
		for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
	return len(s)
}

// ValueAt returns the result of the value that starts at s[i] (as Result
// builds it) and the index in s just past the value. s must be part of a
// document that passed Valid; when it is part of the document a's index
// holds, the value's extent comes from the index instead of a scan.
func (a *Arena) ValueAt(s string, i int) (gjson.Result, int) {
	if a == nil {
		end := valueEnd(s, i)
		return a.Result(s[i:end]), end
	}
	if x := a.index; x != nil {
		if k, base, ok := x.find(s, i); ok {
			t := &x.tokens[k]
			end := int(t.end) - base
			if s[i] == '"' {
				return a.StringValue(s[i:end], t.esc != 0), end
			}
			return a.Result(s[i:end]), end
		}
	}
	end := valueEnd(s, i)
	return a.Result(s[i:end]), end
}

// ValueEnd returns the index in s just past the value that starts at s[i].
// s must be part of a document that passed Valid; when it is part of the
// document a's index holds, the end comes from the index instead of a scan
// of the value's contents.
func (a *Arena) ValueEnd(s string, i int) int {
	if a != nil && a.index != nil {
		if end, ok := a.index.end(s, i); ok {
			return end
		}
	}
	return valueEnd(s, i)
}

// valueEnd returns the index just past the JSON value starting at i.
func valueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		return StringEnd(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				i = StringEnd(s, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(s)
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// appendUnescaped appends the unescaped form of the JSON string body s.
// Invalid escapes cannot occur in a validated document; lone surrogates
// become U+FFFD as in encoding/json.
func appendUnescaped(dst []byte, s string) []byte {
	i := 0
	if len(s) >= 64 {
		dst, i = appendUnescapedBlocks(dst, s)
	}
	for ; i < len(s); i++ {
		if s[i] != '\\' {
			// Copy the run up to the next escape at once.
			j := strings.IndexByte(s[i:], '\\')
			if j < 0 {
				return append(dst, s[i:]...)
			}
			dst = append(dst, s[i:i+j]...)
			i += j
		}
		var n int
		dst, n = appendEscape(dst, s[i+1:])
		i += n
	}
	return dst
}

// appendUnescapedBlocks unescapes s 64 bytes at a time, finding the
// backslashes that start escapes from bit masks, and returns where in s it
// stopped: at a byte that is not escaped, with less than a block left.
//
// Escapes come every few bytes in code and prompts, so each run between
// two of them is moved as one 16-byte block where it fits (bytes past the
// run are overwritten by what follows, or lie beyond the result) into room
// reserved once: no escape unescapes to more than its own length.
func appendUnescapedBlocks(dst []byte, s string) ([]byte, int) {
	n := len(dst)
	dst = slices.Grow(dst, len(s)+16)
	buf := dst[:cap(dst)]
	start := 0 // the first byte not yet copied or consumed
	var carry uint64
	i := 0
	for ; len(s)-i >= 64; i += 64 {
		_, b, _ := StringMasks(unsafe.StringData(s[i:]))
		escaped := escapedBits(b, &carry)
		for m := b &^ escaped; m != 0; m &= m - 1 {
			k := i + bits.TrailingZeros64(m)
			if k < start || k+1 >= len(s) {
				continue // a backslash among a \u escape's digits cannot be; keep the walk safe
			}
			if r := k - start; r <= 16 && start+16 <= len(s) {
				*(*[16]byte)(unsafe.Pointer(&buf[n : n+16][0])) = *(*[16]byte)(unsafe.Pointer(unsafe.StringData(s[start:])))
				n += r
			} else {
				n += copy(buf[n:], s[start:k])
			}
			if c := unescapedBytes[s[k+1]]; c != 0 {
				buf[n] = c
				n++
				start = k + 2
				continue
			}
			// \u: the only other escape a validated document holds.
			r, w := decodeU(s[k+2:])
			n += utf8.EncodeRune(buf[n:], r)
			start = k + 2 + w
		}
	}
	return dst[:n], start
}

// unescapedBytes maps the letter of a one-letter escape to the byte it
// stands for.
var unescapedBytes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendEscape appends what the escape whose letter starts s (the byte
// after the backslash) stands for, and returns how many bytes of s it took.
func appendEscape(dst []byte, s string) ([]byte, int) {
	if len(s) == 0 {
		return dst, 0
	}
	if c := unescapedBytes[s[0]]; c != 0 {
		return append(dst, c), 1
	}
	// \u: the only other escape a validated document holds.
	r, n := decodeU(s[1:])
	return utf8.AppendRune(dst, r), 1 + n
}

// decodeU decodes the hex digits after \u (and a following \uXXXX low
// surrogate), returning the rune and how many bytes it consumed.
func decodeU(s string) (rune, int) {
	r1 := hex4(s)
	if r1 < 0 {
		return utf8.RuneError, 0
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 4
	}
	if len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if r2 := hex4(s[6:]); r2 >= 0 {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, 10
			}
		}
	}
	return utf8.RuneError, 4
}

// hex4 parses four hex digits, or returns -1.
func hex4(s string) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
