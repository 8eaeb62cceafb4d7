package caddymodule

import (
	"net/http"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
)

// route is what the request path says about a generation request.
type route struct {
	protocol codec.Protocol
	// model is the model named in the path (Gemini, Vertex and Vertex
	// Anthropic paths), empty otherwise.
	model string
	// stream reports a streaming method in the path
	// (:streamGenerateContent, :streamRawPredict).
	stream bool
}

// detectRoute recognises a generation endpoint from the request path.
// Paths are matched by their protocol-specific tail so that a site may
// mount the API under a prefix (for example /openai/v1/chat/completions).
func detectRoute(path string) (route, bool) {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return route{protocol: codec.OpenAIChat}, true
	// Responses and Messages need their /v1: /v1/threads/{id}/messages is
	// OpenAI's Assistants API, not Anthropic's.
	case strings.HasSuffix(path, "/v1/responses") || path == "/responses":
		return route{protocol: codec.OpenAIResponses}, true
	case strings.HasSuffix(path, "/v1/messages") || path == "/messages":
		return route{protocol: codec.AnthropicMessages}, true
	}
	colon := strings.LastIndexByte(path, ':')
	if colon < 0 {
		return route{}, false
	}
	method := path[colon+1:]
	rest := path[:colon]
	slash := strings.LastIndexByte(rest, '/')
	if slash < 0 || slash == len(rest)-1 {
		return route{}, false
	}
	model := rest[slash+1:]
	parent := rest[:slash]
	switch {
	case strings.HasSuffix(parent, "/publishers/anthropic/models"):
		switch method {
		case "rawPredict":
			return route{protocol: codec.VertexAnthropic, model: model}, true
		case "streamRawPredict":
			return route{protocol: codec.VertexAnthropic, model: model, stream: true}, true
		}
	case strings.HasSuffix(parent, "/publishers/google/models"):
		switch method {
		case "generateContent":
			return route{protocol: codec.Vertex, model: model}, true
		case "streamGenerateContent":
			return route{protocol: codec.Vertex, model: model, stream: true}, true
		}
	case strings.HasSuffix(parent, "/models"):
		switch method {
		case "generateContent":
			return route{protocol: codec.Gemini, model: model}, true
		case "streamGenerateContent":
			return route{protocol: codec.Gemini, model: model, stream: true}, true
		}
	}
	return route{}, false
}

// guessProtocol picks the protocol whose error format suits a request that
// is not a recognised generation request: the configured client protocol,
// else what the path prefix and headers suggest.
func guessProtocol(configured codec.Protocol, r *http.Request) codec.Protocol {
	if configured != "" {
		return configured
	}
	path := r.URL.Path
	switch {
	case strings.Contains(path, "/publishers/anthropic/"):
		return codec.VertexAnthropic
	case strings.Contains(path, "/projects/"):
		return codec.Vertex
	case strings.HasPrefix(path, "/v1beta/") || r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key"):
		return codec.Gemini
	case r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "":
		return codec.AnthropicMessages
	}
	return codec.OpenAIChat
}

// upstreamPath returns the path and raw query of the upstream endpoint for a
// request of the given model.
func (h *Handler) upstreamPath(model string, stream bool) (path, rawQuery string) {
	switch h.upstream {
	case codec.OpenAIChat:
		return "/v1/chat/completions", ""
	case codec.OpenAIResponses:
		return "/v1/responses", ""
	case codec.AnthropicMessages:
		return "/v1/messages", ""
	case codec.Gemini:
		if stream {
			return "/v1beta/models/" + model + ":streamGenerateContent", "alt=sse"
		}
		return "/v1beta/models/" + model + ":generateContent", ""
	case codec.Vertex:
		base := h.vertexBase("google", model)
		if stream {
			return base + ":streamGenerateContent", "alt=sse"
		}
		return base + ":generateContent", ""
	case codec.VertexAnthropic:
		base := h.vertexBase("anthropic", model)
		if stream {
			return base + ":streamRawPredict", ""
		}
		return base + ":rawPredict", ""
	}
	return "", ""
}

func (h *Handler) vertexBase(publisher, model string) string {
	return "/v1/projects/" + h.VertexProject + "/locations/" + h.VertexLocation + "/publishers/" + publisher + "/models/" + model
}
