package jsonx

import "sync"

// AppendUnescaped appends the body s of a JSON string literal (quotes left
// out) unescaped, as Arena.Unescape does, for an encoder that writes a
// string's text into its output without making a string of it first. s
// must come from a document that passed Valid.
func AppendUnescaped(dst []byte, s string) []byte { return appendUnescaped(dst, s) }

// UnescapeInRoom is Unescape where the arena's buffer has room for s
// already: it reports false, and allocates nothing, where Unescape would
// allocate the buffer. A decoder that must unescape a literal only to
// check it, and can move the literal instead of the text, keeps the text
// when keeping it is free, and checks it from a scratch buffer otherwise
// (CheckUnescaped): the first string a document unescapes allocates the
// buffer for all of them.
func (a *Arena) UnescapeInRoom(s string) (string, bool) {
	if cap(a.buf)-len(a.buf) < len(s)+16 {
		return "", false
	}
	return a.Unescape(s), true
}

// CheckUnescaped reports what check says of the body s of a JSON string
// literal unescaped, without keeping the unescaped text: s is unescaped
// into a pooled buffer that check's argument is a view of, valid only
// during the call. It is for a decoder that validates what a literal says
// and then moves the literal itself, unescaped only if something reads
// it. s must come from a document that passed Valid.
func CheckUnescaped(s string, check func(string) bool) bool {
	b := scratchPool.Get().(*[]byte)
	*b = appendUnescaped((*b)[:0], s)
	ok := check(BytesToString(*b))
	if cap(*b) <= maxPooledScratch {
		scratchPool.Put(b)
	}
	return ok
}

// scratchPool holds CheckUnescaped's buffers.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledScratch is the largest buffer CheckUnescaped gives back to its
// pool: a rare huge literal is not kept alive for every check after it.
const maxPooledScratch = 64 << 10
