package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// dropSegment is one step of a drop path: an object key, an array index,
// or any array index.
type dropSegment struct {
	key   string // the object key, or "" for an index step
	index int    // the array index; -1 for [*]
}

// Drop is a compiled drop setting entry.
type Drop struct {
	text string
	segs []dropSegment
}

// CompileDrop parses a drop path: object keys separated by dots, each
// optionally followed by array steps [n] or [*] ("tools[*].cache_control",
// "metadata", "messages[*].content[*].citations"). Keys consist of
// letters, digits, '_' and '-'; the path starts with a key, because every
// request body is an object.
func CompileDrop(s string) (Drop, error) {
	p := Drop{text: s}
	if s == "" {
		return p, fmt.Errorf("empty drop path")
	}
	i := 0
	for i < len(s) {
		start := i
		for i < len(s) && isDropKeyByte(s[i]) {
			i++
		}
		if i == start {
			return p, fmt.Errorf("drop path %q: expected a field name at offset %d", s, start)
		}
		p.segs = append(p.segs, dropSegment{key: s[start:i]})
		for i < len(s) && s[i] == '[' {
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return p, fmt.Errorf("drop path %q: unclosed '['", s)
			}
			idx := s[i+1 : i+end]
			switch n, err := strconv.Atoi(idx); {
			case idx == "*":
				p.segs = append(p.segs, dropSegment{index: -1})
			case err == nil && n >= 0 && idx[0] != '+':
				p.segs = append(p.segs, dropSegment{index: n})
			default:
				return p, fmt.Errorf("drop path %q: array step [%s] must be [*] or [n]", s, idx)
			}
			i += end + 1
		}
		if i < len(s) {
			if s[i] != '.' || i == len(s)-1 {
				return p, fmt.Errorf("drop path %q: unexpected %q at offset %d (write key.key, key[*] or key[n])", s, s[i], i)
			}
			i++
		}
	}
	return p, nil
}

func isDropKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Matches reports whether the concrete field path (as codecs write them,
// "tools[2].cache_control") is one this drop path names.
func (p *Drop) Matches(path string) bool {
	for k, seg := range p.segs {
		if seg.key != "" {
			if k > 0 {
				if path == "" || path[0] != '.' {
					return false
				}
				path = path[1:]
			}
			rest, ok := strings.CutPrefix(path, seg.key)
			if !ok || rest != "" && rest[0] != '.' && rest[0] != '[' {
				return false
			}
			path = rest
			continue
		}
		if path == "" || path[0] != '[' {
			return false
		}
		end := strings.IndexByte(path, ']')
		if end < 0 {
			return false
		}
		if seg.index >= 0 && path[1:end] != strconv.Itoa(seg.index) {
			return false
		}
		path = path[end+1:]
	}
	return path == ""
}

// expand appends the concrete paths in body that p names, as pairs of the
// display path ("tools[0].cache_control") and the sjson path
// ("tools.0.cache_control").
func (p *Drop) expand(v gjson.Result, k int, display, sj string, out [][2]string) [][2]string {
	if k == len(p.segs) {
		return append(out, [2]string{display, sj})
	}
	seg := p.segs[k]
	if seg.key != "" {
		if !v.IsObject() {
			return out
		}
		c := v.Get(seg.key)
		if !c.Exists() {
			return out
		}
		if display != "" {
			display += "."
			sj += "."
		}
		return p.expand(c, k+1, display+seg.key, sj+seg.key, out)
	}
	if !v.IsArray() {
		return out
	}
	i := 0
	v.ForEach(func(_, c gjson.Result) bool {
		if seg.index < 0 || seg.index == i {
			n := strconv.Itoa(i)
			out = p.expand(c, k+1, display+"["+n+"]", sj+"."+n, out)
		}
		i++
		return seg.index < 0 || i <= seg.index
	})
	return out
}

// ApplyDrops removes every field the drop setting names from body and
// returns the new body and the removed paths. A path that matches nothing
// is fine. Every occurrence is removed, also of a key repeated in one
// object (a decoder reads all of them).
func ApplyDrops(body []byte, paths []Drop) ([]byte, []string, *codec.Error) {
	var dropped []string
	var found [][2]string
	for i := range paths {
		p := &paths[i]
		for round := 0; ; round++ {
			found = p.expand(gjson.ParseBytes(body), 0, "", "", found[:0])
			if len(found) == 0 {
				break
			}
			if round == MaxRounds {
				return body, dropped, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: found[0][0],
					Message: "field occurs too often to be dropped (drop " + p.text + ")"}
			}
			// From the last to the first, so that deleting an array
			// element does not shift the indices still to be deleted.
			for j := len(found) - 1; j >= 0; j-- {
				nb, err := sjson.DeleteBytes(body, found[j][1])
				if err != nil {
					return body, dropped, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: found[j][0],
						Message: "field could not be dropped (drop " + p.text + ")"}
				}
				body = nb
			}
			for _, f := range found {
				dropped = append(dropped, f[0])
			}
		}
	}
	return body, dropped, nil
}

// SJSONPath converts a field path ("messages[3].content[1]") into an sjson
// path ("messages.3.content.1"), escaping the characters sjson treats
// specially in keys.
func SJSONPath(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '[':
			if i > 0 {
				b.WriteByte('.')
			}
		case ']':
		case '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%', ':':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// WildcardPath replaces the array indices of a field path with [*].
func WildcardPath(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '[' {
			if end := strings.IndexByte(p[i:], ']'); end > 0 {
				b.WriteString("[*]")
				i += end
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
