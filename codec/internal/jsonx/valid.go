package jsonx

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Valid reports whether s is one valid JSON value (RFC 8259), with
// optional surrounding whitespace. It accepts exactly what encoding/json's
// Valid accepts, including invalid UTF-8 inside strings (which decoders
// replace with U+FFFD), and nests to any depth without recursion.
//
// It replaces gjson.Valid on the hot paths: every request body and every
// upstream stream event is validated before it is read, and string contents
// (most of the bytes) are classified 64 bytes at a time (StringMasks)
// without a branch per byte or per escape. IndexDocument and
// Arena.IndexEvent validate the same way and also record the document's
// structure.
func Valid(s string) bool { return scanJSON(s, nil, false) }

// scanJSON is Valid that also records, when x is not nil, every value
// and key of s (see Index), in the same pass. With reuse, x holds the
// previous event's tape and prefix (Index.keepPrefix), and the scan
// resumes where s stops sharing them (see reuse.go).
func scanJSON(s string, x *Index, reuse bool) bool {
	// stack holds one bit per open container: 1 for an object, 0 for an
	// array; depth counts them (unsigned, so that finding a bit is a
	// shift and a mask). open holds the index in x.tokens of each
	// open container when recording.
	var small [4]uint64
	stack := small[:]
	depth := uint(0)
	var smallOpen [32]int32
	open := smallOpen[:0]
	// inObject says whether the innermost open container is an object:
	// kept beside the stack, since every comma and close asks.
	inObject := false
	push := func(obj bool) {
		if depth/64 == uint(len(stack)) {
			stack = append(stack, 0)
		}
		if obj {
			stack[depth/64] |= 1 << (depth % 64)
		} else {
			stack[depth/64] &^= 1 << (depth % 64)
		}
		depth++
		inObject = obj
	}
	i := 0
	if x != nil {
		switch {
		case len(s) > math.MaxInt32:
			x.reset()
			x = nil // offsets are int32; such a document is walked without an index
		case reuse:
			var key bool
			if i, key, open = x.resume(s, open); i > 0 {
				for _, c := range open {
					push(s[x.tokens[c].start] == '{')
				}
				// Where the previous event's token started, s may have
				// whitespace that the scan from the start skips first.
				i = SkipSpace(s, i)
				if key {
					goto key
				}
				goto value
			}
		default:
			x.reset()
		}
	}

	i = SkipSpace(s, 0)
value:
	// A value is expected at i.
	if i >= len(s) {
		return false
	}
	switch c := s[i]; {
	case c == '{':
		start := i
		i = SkipSpace(s, i+1)
		if i < len(s) && s[i] == '}' {
			i++
			x.add(start, i, 0)
			goto next
		}
		push(true)
		open = x.openAt(start, open)
		goto key
	case c == '[':
		start := i
		i = SkipSpace(s, i+1)
		if i < len(s) && s[i] == ']' {
			i++
			x.add(start, i, 0)
			goto next
		}
		push(false)
		open = x.openAt(start, open)
		goto value
	case c == '"':
		if j := shortString(s, i); j > 0 {
			x.add(i, j, 0)
			i = j
		} else if i = x.scanString(s, i); i < 0 {
			return false
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := i
		if i = validNumber(s, i); i < 0 {
			return false
		}
		x.add(start, i, 0)
	case c == 't':
		if len(s)-i < 4 || s[i:i+4] != "true" {
			return false
		}
		x.add(i, i+4, 0)
		i += 4
	case c == 'f':
		if len(s)-i < 5 || s[i:i+5] != "false" {
			return false
		}
		x.add(i, i+5, 0)
		i += 5
	case c == 'n':
		if len(s)-i < 4 || s[i:i+4] != "null" {
			return false
		}
		x.add(i, i+4, 0)
		i += 4
	default:
		return false
	}
next:
	// A value ended at i: a comma, the close of its container, or the end.
	// Compact JSON, what APIs send, has no whitespace to skip: one
	// comparison tells.
	if i < len(s) && s[i] <= ' ' {
		i = SkipSpace(s, i)
	}
	if depth == 0 {
		return i == len(s)
	}
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case ',':
		i++
		if i < len(s) && s[i] <= ' ' {
			i = SkipSpace(s, i)
		}
		if inObject {
			goto key
		}
		goto value
	case '}':
		if !inObject {
			return false
		}
	case ']':
		if inObject {
			return false
		}
	default:
		return false
	}
	depth--
	if depth > 0 {
		inObject = stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
	}
	i++
	if x != nil {
		t := &x.tokens[open[len(open)-1]]
		t.end, t.skip = int32(i), int32(len(x.tokens))
		open = open[:len(open)-1]
	}
	goto next
key:
	// An object member's key and colon are expected at i.
	if i >= len(s) || s[i] != '"' {
		return false
	}
	if j := shortString(s, i); j > 0 {
		x.add(i, j, 0)
		i = j
	} else if i = x.scanString(s, i); i < 0 {
		return false
	}
	if i < len(s) && s[i] <= ' ' {
		i = SkipSpace(s, i)
	}
	if i >= len(s) || s[i] != ':' {
		return false
	}
	i++
	if i < len(s) && s[i] <= ' ' {
		i = SkipSpace(s, i)
	}
	goto value
}

// shortString returns the index just past the string literal starting at
// s[i] == '"' when the literal closes within the eight bytes after its
// opening quote and holds nothing escaped or invalid before, else 0. Most
// keys and many values (roles, types, ids of stream events) are that
// short: inlined into scanJSON, the check costs one word's test instead of
// a call of validString.
func shortString(s string, i int) int {
	if len(s)-i < 9 {
		return 0
	}
	m := stringSpecial8(load8(s, i+1))
	if m == 0 {
		return 0
	}
	j := i + 1 + bits.TrailingZeros64(m)/8
	if s[j] != '"' {
		return 0
	}
	return j + 1
}

// validString checks the string literal starting at s[i] == '"' and returns
// the index just past it, or -1, and what escapes it holds.
func validString(s string, i int) (end int, esc escapes) {
	i++
	// Most strings are short (keys, ids, roles): look at two words before
	// setting up the 64-byte blocks.
	if len(s)-i >= 16 {
		m := stringSpecial8(load8(s, i))
		k := i
		if m == 0 {
			m, k = stringSpecial8(load8(s, i+8)), i+8
		}
		switch {
		case m == 0:
			i += 16
		case s[k+bits.TrailingZeros64(m)/8] == '"':
			return k + bits.TrailingZeros64(m)/8 + 1, 0
		}
		// Otherwise an escape or a control byte comes early: the blocks
		// below take the string from its start.
	}
	// 64 bytes at a time: classify them, work out which bytes
	// backslashes escape, and find the closing quote, any control
	// character and any invalid escape from the bit masks, without
	// a branch per escape.
	var carry uint64 // 1 when the next block's first byte is escaped
	var hasEscape escapes
	for len(s)-i >= 64 {
		q, b, c := StringMasks(unsafe.StringData(s[i:]))
		escaped := escapedBits(b, &carry)
		quotes := q &^ escaped
		inside := ^uint64(0)
		if quotes != 0 {
			inside = quotes&-quotes - 1
		}
		if c&inside != 0 {
			return -1, 0
		}
		if escaped&inside != 0 {
			hasEscape |= escSome
		}
		// An escaped quote or backslash is a valid escape: only the
		// other escaped bytes are looked up (a newline's n, a \u).
		for e := escaped & inside &^ (q | b); e != 0; e &= e - 1 {
			k := i + bits.TrailingZeros64(e)
			switch escapeLen[s[k]] {
			case 0:
				return -1, 0
			case 6:
				r := hex4(s[k+1:])
				if r < 0 {
					return -1, 0
				}
				hasEscape |= surrogateEscape(r)
			}
		}
		if quotes != 0 {
			return i + bits.TrailingZeros64(quotes) + 1, hasEscape
		}
		i += 64
		if q|b|c == 0 && carry == 0 {
			// A block of plain text: prose (descriptions, prompts)
			// often runs on for blocks without a special byte, which
			// one call skips at a test per block.
			i += plainBlocks(unsafe.StringData(s[i:]), len(s)-i)
		}
	}
	if carry != 0 {
		i-- // the block ended on an escaping backslash: start from it
	}
	return validStringTail(s, i, hasEscape)
}

// escapedBits returns which bytes of a 64-byte block are escaped by a
// backslash, given the block's backslashes: the byte after a run of
// backslashes is escaped when the run is odd. carry says whether the
// block's first byte is escaped by the previous block and is updated for
// the next one. This is simdjson's branchless find_escaped.
func escapedBits(backslash uint64, carry *uint64) uint64 {
	const even = 0x5555555555555555
	backslash &^= *carry
	followsEscape := backslash<<1 | *carry
	oddStarts := backslash &^ even &^ followsEscape
	evenSequences, overflow := bits.Add64(oddStarts, backslash, 0)
	*carry = overflow
	return (even ^ evenSequences<<1) & followsEscape
}

// validStringTail is validString from i, just past the opening quote or
// inside the string at a byte that is not escaped; escaped says whether
// the string had an escape before i.
func validStringTail(s string, i int, escaped escapes) (int, escapes) {
	for {
		// Skip the bytes that hold no quote, backslash or control
		// character a word at a time, two words per round so that the two
		// checks overlap, and land on the first special byte.
		for i+16 <= len(s) {
			if m := stringSpecial8(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			if m := stringSpecial8(load8(s, i+8)); m != 0 {
				i += 8 + bits.TrailingZeros64(m)/8
				goto special
			}
			i += 16
		}
		for i+8 <= len(s) {
			if m := stringSpecial8(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			i += 8
		}
		for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' {
			i++
		}
		if i >= len(s) {
			return -1, 0
		}
	special:
		switch c := s[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped |= escSome
			if i+1 >= len(s) {
				return -1, 0
			}
			// A table rather than a switch: escapes are frequent in
			// conversation text and their letters unpredictable.
			switch escapeLen[s[i+1]] {
			case 2:
				i += 2
			case 6:
				r := hex4(s[i+2:])
				if r < 0 {
					return -1, 0
				}
				escaped |= surrogateEscape(r)
				i += 6
			default:
				return -1, 0
			}
		default: // a control character
			return -1, 0
		}
	}
}

// escapeLen is the length of the escape sequence that starts with a
// backslash and the given byte: 2, 6 for \\u (four hex digits follow), or 0
// when the byte starts no valid escape.
var escapeLen = [256]uint8{'"': 2, '\\': 2, '/': 2, 'b': 2, 'f': 2, 'n': 2, 'r': 2, 't': 2, 'u': 6}

// validNumber checks the number starting at s[i] and returns the index just
// past it, or -1.
func validNumber(s string, i int) int {
	if s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return -1
	}
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// ParseObject parses s and checks that it is a JSON object. When it is
// not, problem says why ("is not valid JSON", "must be a JSON object").
func ParseObject(s string) (root gjson.Result, problem string) {
	if !Valid(s) {
		return gjson.Result{}, "is not valid JSON"
	}
	return rootObject(s)
}

// ParseIndexed is ParseObject that also returns the document's structural
// index, for a decode that walks all of it. The caller releases the index
// (Index.Release) once it is done.
func ParseIndexed(s string) (root gjson.Result, x *Index, problem string) {
	x = IndexDocument(s)
	if x == nil {
		return gjson.Result{}, nil, "is not valid JSON"
	}
	root, problem = rootObject(s)
	if problem != "" {
		x.Release()
		return root, nil, problem
	}
	return root, x, ""
}

// rootObject parses the valid document s and checks that it is an object.
func rootObject(s string) (gjson.Result, string) {
	root := gjson.Parse(s)
	if !root.IsObject() {
		return gjson.Result{}, "must be a JSON object"
	}
	return root, ""
}

// IsObject reports whether s is one valid JSON object, with optional
// surrounding whitespace.
func IsObject(s string) bool {
	i := SkipSpace(s, 0)
	return i < len(s) && s[i] == '{' && Valid(s[i:])
}
