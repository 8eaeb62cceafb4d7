package jsonx

// SkimMembers calls yield with the key (its literal's body, escapes
// intact) and the raw value of each member of the object at the top of s,
// in order, until yield returns false, and reports whether s holds an
// object. Unlike Members, s need not be valid JSON: it is read before
// validation, to find a member or two in a body that a codec validates
// later, and reading stops without a panic at the first byte that breaks
// the object's syntax. Values are skipped as Members skips them outside an
// indexed document, strings with a vectorised search, where gjson's Get
// steps through every byte of every value before the one it looks for.
func SkimMembers(s string, yield func(key, raw string) bool) bool {
	i := SkipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	for i++; ; i++ {
		i = SkipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			return true
		}
		end := StringEnd(s, i)
		if end >= len(s) {
			return true
		}
		key := s[i+1 : end-1]
		i = SkipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return true
		}
		i = SkipSpace(s, i+1)
		if i >= len(s) {
			return true
		}
		end = valueEnd(s, i)
		if !yield(key, s[i:end]) {
			return true
		}
		i = SkipSpace(s, end)
		if i >= len(s) || s[i] != ',' {
			return true
		}
	}
}
