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
func (h *Handler) withPromptCacheKey(body []byte, client, upstream codec.Protocol) []byte {
	if !h.cachePolicy.Key || h.dialect != nil || client != upstream || (upstream != codec.OpenAIChat && upstream != codec.OpenAIResponses) {
		return body
	}
	req := getRequest()
	defer putRequest(req)
	if codec.DecodeRequest(client, body, req) != nil || req.Cache.Key != "" {
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
