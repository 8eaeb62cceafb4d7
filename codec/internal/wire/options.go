package wire

import (
	"github.com/llmbridge/llmbridge/codec"
)

// EncodeModel returns the model to write for r: o.Model, or else r's own.
func EncodeModel(o *codec.EncodeOptions, r *codec.Request) string {
	if o.Model != "" {
		return o.Model
	}
	return r.Model
}

// EncodeMaxTokens returns the max_tokens to write for r: r's own, or else
// o's default, or else DefaultMaxTokens.
func EncodeMaxTokens(o *codec.EncodeOptions, r *codec.Request) int64 {
	if r.MaxTokens.Set {
		return r.MaxTokens.Value
	}
	if o.DefaultMaxTokens > 0 {
		return o.DefaultMaxTokens
	}
	return codec.DefaultMaxTokens
}
