package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// vertexCountFields are the members of a Vertex countTokens body that a
// generateContent body also has.
var vertexCountFields = []string{"contents", "systemInstruction", "tools", "generationConfig"}

// countBody turns a Gemini or Vertex countTokens body into the
// generation body it counts: its contents (and the rest) directly, or a
// generateContentRequest, without the model (the path names it).
func countBody(root gjson.Result) ([]byte, *codec.Error) {
	inner := root.Get("generateContentRequest")
	if inner.Exists() {
		if !inner.IsObject() {
			return nil, wire.WrongType("generateContentRequest", "an object", inner)
		}
		if root.Get("contents").Exists() {
			return nil, codec.InvalidRequest("contents", "must not be set together with generateContentRequest")
		}
		root = inner
	}
	return wire.AppendMembers(nil, root, func(k string) bool { return k != "model" && k != "instances" }), nil
}

// vertexCountFrame writes a Vertex countTokens body.
func vertexCountFrame(dst []byte, gen gjson.Result) []byte {
	return wire.AppendMembers(dst, gen, wire.Keep(vertexCountFields))
}

// countFrame writes a Gemini API countTokens body: the whole
// generation request, with its model, as generateContentRequest.
func countFrame(dst []byte, gen gjson.Result, req *codec.Request, opts *codec.EncodeOptions) []byte {
	dst = append(dst, `{"generateContentRequest":{"model":`...)
	dst = jsonx.AppendString(dst, "models/"+strings.TrimPrefix(wire.EncodeModel(opts, req), "models/"))
	inner := wire.AppendMembers(nil, gen, func(string) bool { return true })
	if len(inner) > 2 {
		dst = append(dst, ',')
		dst = append(dst, inner[1:len(inner)-1]...)
	}
	return append(dst, `}}`...)
}
