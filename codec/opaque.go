package codec

import (
	"strings"

	"github.com/tidwall/gjson"
)

// OpaqueKind returns the kind of upstream output that the opaque value of a
// reasoning part (Part.Signature, or the Signature of an EventPartStop)
// keeps whole, for logs and metrics: its "type" member (an Anthropic block,
// a Responses item), else its first member that is not thought metadata (a
// Gemini part's data, a Chat answer's audio). It returns "" for a value
// that is not such output: a signature, redacted or encrypted reasoning.
func OpaqueKind(signature string) string {
	if !strings.HasPrefix(signature, "{") {
		return ""
	}
	v := gjson.Parse(signature)
	if t := v.Get("type"); t.Type == gjson.String {
		return t.Str
	}
	kind := ""
	v.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "thought", "thoughtSignature", "partMetadata":
			return true
		}
		kind = k.Str
		return false
	})
	return kind
}
