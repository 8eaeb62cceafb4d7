package jsonx

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// BytesToString views b as a string without copying. The caller must not
// modify b while the string, or anything sliced from it, is in use.
func BytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// AppendString appends s as a JSON string literal, quotes included. Invalid
// UTF-8 is replaced with U+FFFD, as encoding/json does, and U+2028 and
// U+2029 are escaped, since JavaScript consumers would take them for line
// breaks.
func AppendString(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	dst = AppendStringBody(dst, s)
	return append(dst, '"')
}

// AppendStringBody appends s escaped as AppendString escapes it, without
// the quotes, so that several texts can be joined into one JSON string.
func AppendStringBody(dst []byte, s string) []byte {
	if len(s) >= 64 && utf8.ValidString(s) && !hasLineSeparator(s) {
		return appendValidStringBody(dst, s)
	}
	start := 0
	for i := 0; i < len(s); {
		// Skip the plain ASCII bytes a word at a time, two per round so
		// that the checks overlap, and land on the first byte that needs
		// a look: conversation text is mostly plain.
		for i+16 <= len(s) {
			if m := needsEscape8(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			if m := needsEscape8(load8(s, i+8)); m != 0 {
				i += 8 + bits.TrailingZeros64(m)/8
				goto special
			}
			i += 16
		}
		for i+8 <= len(s) {
			if m := needsEscape8(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			i += 8
		}
		for i < len(s) && s[i] >= 0x20 && s[i] < utf8.RuneSelf && s[i] != '"' && s[i] != '\\' {
			i++
		}
		if i >= len(s) {
			break
		}
	special:
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript consumers.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// appendValidStringBody is AppendStringBody for valid UTF-8 without U+2028 or
// U+2029, where only quotes, backslashes and control characters need
// escaping: it finds them 64 bytes at a time from bit masks, without a
// branch per plain byte or per word.
func appendValidStringBody(dst []byte, s string) []byte {
	start, i := 0, 0
	for ; len(s)-i >= 64; i += 64 {
		q, b, c := StringMasks(unsafe.StringData(s[i:]))
		for m := q | b | c; m != 0; m &= m - 1 {
			k := i + bits.TrailingZeros64(m)
			dst = append(dst, s[start:k]...)
			dst = appendEscapedASCII(dst, s[k])
			start = k + 1
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// hasLineSeparator reports whether s holds U+2028 or U+2029 (both encoded
// as E2 80 A8/A9), which AppendString escapes.
func hasLineSeparator(s string) bool {
	for {
		i := strings.IndexByte(s, 0xe2)
		if i < 0 || i+2 >= len(s) {
			return false
		}
		if s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
			return true
		}
		s = s[i+1:]
	}
}

// appendEscapedASCII appends the JSON escape of the quote, backslash or
// control character c.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

const hexDigits = "0123456789abcdef"

// AppendStringArray appends ss as a JSON array of strings, each written by
// AppendString.
func AppendStringArray(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

// AppendInt appends n as a JSON number.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// AppendFloat appends f as a JSON number in its shortest exact form. JSON
// has no infinities or NaN, so those are written as 0 to keep the output
// valid.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, '0')
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

// Compact removes the whitespace outside strings from the JSON text b, in
// place, and returns the shortened slice. Raw JSON copied into a
// Server-Sent Events data line must hold no line break: a pretty-printed
// value would otherwise end the line early and corrupt the event.
func Compact(b []byte) []byte {
	w := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' && i+1 < len(b) {
				b[w] = c
				w++
				i++
				c = b[i]
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		b[w] = c
		w++
	}
	return b[:w]
}
