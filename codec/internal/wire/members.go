package wire

import (
	"github.com/tidwall/gjson"
)

// Keep returns a filter that keeps the members named in names.
func Keep(names []string) func(string) bool {
	return func(k string) bool {
		for _, n := range names {
			if n == k {
				return true
			}
		}
		return false
	}
}

// AppendMembers appends, as a JSON object, the members of object v whose
// key keep accepts, byte for byte.
func AppendMembers(dst []byte, v gjson.Result, keep func(string) bool) []byte {
	dst = append(dst, '{')
	first := true
	v.ForEach(func(k, val gjson.Result) bool {
		if keep(k.String()) {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, k.Raw...)
			dst = append(dst, ':')
			dst = append(dst, val.Raw...)
		}
		return true
	})
	return append(dst, '}')
}
