package jsonx

import "strings"

// escapesNoSurrogate reports whether s, the body of a string literal of a
// valid document (quotes left out), holds no \u escape of a UTF-16
// surrogate: the reference for what validString finds. Each escape is
// stepped over whole, so that an escaped backslash before a u is not read
// as \u.
func escapesNoSurrogate(s string) bool {
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 || i+1 >= len(s) {
			return true
		}
		if s[i+1] == 'u' && i+3 < len(s) && (s[i+2]|0x20) == 'd' && s[i+3] >= '8' && (s[i+3] <= '9' || (s[i+3]|0x20) >= 'a' && (s[i+3]|0x20) <= 'f') {
			return false
		}
		s = s[i+2:]
	}
}
