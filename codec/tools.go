package codec

import (
	"hash/fnv"
	"strconv"
)

// maxToolName is the longest tool name every provider accepts (OpenAI,
// Anthropic and Gemini all take 64 characters).
const maxToolName = 64

// FlatToolName is the name the function name of Codex namespace ns takes
// toward protocols without tool groups: "<ns>__<name>", with characters
// other than [a-zA-Z0-9_-] replaced by "_" (the set every provider
// accepts). A name longer than 64 characters keeps its first 55 and ends
// with "_" and 8 hex digits of a hash of the whole, so distinct long names
// stay distinct. With ns empty, name is returned unchanged. The way back
// does not parse the name: it compares it with the flat names of the
// request's namespaced tools.
func FlatToolName(ns, name string) string {
	if ns == "" {
		return name
	}
	b := make([]byte, 0, len(ns)+2+len(name))
	for _, s := range [...]string{ns, "__", name} {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				c = '_'
			}
			b = append(b, c)
		}
	}
	if len(b) > maxToolName {
		h := fnv.New32a()
		h.Write([]byte(ns))
		h.Write([]byte{0})
		h.Write([]byte(name))
		sum := strconv.FormatUint(uint64(h.Sum32()), 16)
		for len(sum) < 8 {
			sum = "0" + sum
		}
		b = append(b[:maxToolName-9], '_')
		b = append(b, sum...)
	}
	return string(b)
}

// RestoredInAnswers reports whether a call of t reaches its client in a
// form the upstream did not see, which encoders restore from the
// request's tools: a Responses custom tool (sent upstream as a function)
// or a function of a namespace (sent under its flat name). A stream keeps
// these tools' names (Request.KeepForStream).
func (t *Tool) RestoredInAnswers() bool {
	return t.Kind != ToolWebSearch && (t.Namespace != "" || t.Kind == ToolCustom)
}
