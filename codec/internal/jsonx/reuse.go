package jsonx

import "math/bits"

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
// its first byte is shared too; and the whitespace before a token is
// skipped before it is expected, so the resumed scan skips whitespace
// first (bytes the previous event's token started with). Everything after
// the resume point is scanned anew, the close of every container open
// there included, which writes its end.
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

// keepPrefix records s, just indexed into x, for the next event's resume:
// its bytes up to the start of its last token (no later resume point
// exists), at most maxReusedPrefix of them.
func (x *Index) keepPrefix(s string) {
	n := 0
	if len(x.tokens) > 1 {
		n = min(int(x.tokens[len(x.tokens)-1].start), maxReusedPrefix)
	}
	x.prev = append(x.prev[:0], s[:n]...)
}

// resume prepares x to index s from the token of the previous event's tape
// where s's scan may resume (see above): it returns where in s that token
// starts, whether a key is expected there, and open with the tokens of
// the containers open there, outermost first, appended; it keeps the
// tokens before it and their escaped bytes. When no token past the root
// lies in the shared prefix it returns 0 with x emptied, for a scan from
// the start.
func (x *Index) resume(s string, open []int32) (i int, key bool, _ []int32) {
	k, key, open := x.resumeToken(s, open)
	if k == 0 {
		x.tokens, x.escapedBytes = x.tokens[:0], 0
		return 0, false, open
	}
	i = int(x.tokens[k].start)
	dropped := 0
	for _, t := range x.tokens[k:] {
		if t.esc != 0 {
			dropped += int(t.end - t.start)
		}
	}
	x.tokens, x.escapedBytes = x.tokens[:k], x.escapedBytes-dropped
	return i, key, open
}

// resumeToken finds resume's token: the last one of the previous tape that
// starts within the prefix s shares with the previous event, descending
// into a container only when its first member's first byte is shared too.
// That byte must be: after a container's opening bracket the scanner
// expects a member or the close (an empty container), and only a byte
// that is not a bracket tells it which; after a comma or a colon it
// expects a value or a key and nothing else.
func (x *Index) resumeToken(s string, open []int32) (k int, key bool, _ []int32) {
	n := int32(commonPrefix(s, x.prev))
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
// a word at a time.
func commonPrefix(s string, p []byte) int {
	n := min(len(s), len(p))
	q := BytesToString(p)
	i := 0
	for ; i+8 <= n; i += 8 {
		if d := load8(s, i) ^ load8(q, i); d != 0 {
			return i + bits.TrailingZeros64(d)/8
		}
	}
	for i < n && s[i] == q[i] {
		i++
	}
	return i
}
