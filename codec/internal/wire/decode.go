package wire

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// ParseResponse is ParseIndexed for a response body of protocol p: a body
// that is not a JSON object is the upstream's fault (codec.BadUpstream).
func ParseResponse(p codec.Protocol, body []byte) (gjson.Result, *jsonx.Index, *codec.Error) {
	root, index, problem := jsonx.ParseIndexed(jsonx.BytesToString(body))
	if problem != "" {
		return root, nil, codec.BadUpstream(p, "request body "+problem)
	}
	return root, index, nil
}

// Err returns e as an error: nil when e is nil, so that a nil *codec.Error
// never becomes a non-nil error.
func Err(e *codec.Error) error {
	if e == nil {
		return nil
	}
	return e
}
