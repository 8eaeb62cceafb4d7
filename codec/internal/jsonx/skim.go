package jsonx

import (
	"math/bits"
	"unsafe"
)

// SkimMembers calls yield with the key (its literal's body, escapes
// intact) and the raw value of each member of the object at the top of s,
// in order, until yield returns false. It reports whether s holds an
// object, and whether the walk read it whole: to its closing brace,
// followed by nothing but whitespace, without yield stopping it. Unlike
// Members, s need not be valid JSON: it is read before validation, to
// find a member or two in a body that a codec validates later, and
// reading stops without a panic at the first byte that breaks the
// object's syntax. Values are skipped as Members skips them outside an
// indexed document, strings 64 bytes at a time as the validating pass
// reads them, where gjson's Get steps through every byte of every value
// before the one it looks for.
func SkimMembers(s string, yield func(key, raw string) bool) (object, whole bool) {
	i := SkipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false, false
	}
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return true, SkipSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return true, false
		}
		end, _ := validString(s, i)
		if end < 0 {
			return true, false
		}
		key := s[i+1 : end-1]
		i = SkipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return true, false
		}
		i = SkipSpace(s, i+1)
		if i >= len(s) {
			return true, false
		}
		end = skimValue(s, i)
		if end < 0 || !yield(key, s[i:end]) {
			return true, false
		}
		i = SkipSpace(s, end)
		switch {
		case i < len(s) && s[i] == ',':
			i = SkipSpace(s, i+1)
		case i < len(s) && s[i] == '}':
			return true, SkipSpace(s, i+1) == len(s)
		default:
			return true, false
		}
	}
}

// skimValue returns the index just past the value starting at s[i], or -1
// where s ends first. Strings, most of a body, are skipped 64 bytes at a
// time (skipString), and only brackets are counted between them: the
// value's syntax is left to the decoder.
func skimValue(s string, i int) int {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				end := skipString(s, i)
				if end < 0 {
					return -1
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	end := valueEnd(s, i)
	if end == i {
		return -1 // no value: a delimiter where one should start
	}
	return end
}

// skipString returns the index just past the string literal starting at
// s[i] (its opening quote), or -1 when s ends first. It is validString
// without the checks: the closing quote is the first quote no backslash
// escapes, found from a block's masks, and what lies between is left to
// the decoder, which validates it.
func skipString(s string, i int) int {
	// Keys and most values between the texts (types, roles, ids) close
	// within a word: one word's test, as the validating pass does
	// (shortString), rather than a block's classification.
	if end := shortString(s, i); end > 0 {
		return end
	}
	i++
	var carry uint64 // 1 when the next block's first byte is escaped
	for len(s)-i >= 64 {
		q, b, _ := StringMasks(unsafe.StringData(s[i:]))
		if quotes := q &^ escapedBits(b, &carry); quotes != 0 {
			return i + bits.TrailingZeros64(quotes) + 1
		}
		i += 64
	}
	i += int(carry) // past a byte the last block's backslash escapes
	for i < len(s) {
		switch s[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return -1
}
