package caddymodule

import (
	"bytes"

	"github.com/llmbridge/llmbridge/codec"
)

// withPromptCacheKey returns body, a request passed through to OpenAI's own
// Chat Completions or Responses API, with the prompt_cache_key a translated
// request toward the same API gets when the cache policy asks for keys and
// the client sent none: the same key, derived from the decoded
// conversation (codec.AppendPromptCacheKey), so that one session's
// requests reach one cache whether they pass through or not. A client's
// own key is kept, and a body that does not decode goes as it is (the
// upstream answers for it). OpenAI-compatible servers (a dialect) get
// nothing they may not know.
func (h *Handler) withPromptCacheKey(body []byte, dec *passthroughDecode, upstream codec.Protocol) []byte {
	if !h.cachePolicy.Key || h.fitter.Dialect() != nil || dec.client != upstream || (upstream != codec.OpenAIChat && upstream != codec.OpenAIResponses) {
		return body
	}
	req, ok := dec.request()
	if !ok || req.Cache.Key != "" {
		return body
	}
	open := bytes.IndexByte(body, '{')
	if open < 0 {
		return body
	}
	out := make([]byte, 0, len(body)+48)
	out = append(out, body[:open+1]...)
	out = append(out, `"prompt_cache_key":"`...)
	out = codec.AppendPromptCacheKey(out, req)
	out = append(out, '"')
	if rest := bytes.TrimLeft(body[open+1:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, body[open+1:]...)
}

// passthroughDecode decodes a passed-through body once, when something
// beside the passthrough reads it, into a pooled request.
type passthroughDecode struct {
	client codec.Protocol
	body   []byte
	req    *codec.Request
	ok     bool
}

// request returns the decoded body, and whether it decoded.
func (d *passthroughDecode) request() (*codec.Request, bool) {
	if d.req == nil {
		d.req = getRequest()
		d.ok = codec.DecodeRequest(d.client, d.body, d.req) == nil
	}
	return d.req, d.ok
}

// release gives the request back to its pool.
func (d *passthroughDecode) release() {
	if d.req != nil {
		putRequest(d.req)
		d.req = nil
	}
}
