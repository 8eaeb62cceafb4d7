package caddymodule

import (
	"net/http"

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

// detectRoute recognises a generation endpoint from the request path, by
// the protocols' descriptors (codec.MatchRoute).
func detectRoute(path string) (route, bool) {
	p, model, stream, ok := codec.MatchRoute(path)
	return route{protocol: p, model: model, stream: stream}, ok
}

// guessProtocol picks the protocol whose error format suits a request that
// is not a recognised generation request: the configured client protocol,
// else what the path and headers suggest (codec.HintedProtocol), else
// OpenAI Chat, whose error format most clients read.
func guessProtocol(configured codec.Protocol, r *http.Request) codec.Protocol {
	if configured != "" {
		return configured
	}
	if p, ok := hintedProtocol(r); ok {
		return p
	}
	return codec.OpenAIChat
}

// hintedProtocol is codec.HintedProtocol for r.
func hintedProtocol(r *http.Request) (codec.Protocol, bool) {
	return codec.HintedProtocol(r.URL.Path, func(h string) bool { return r.Header.Get(h) != "" }, r.URL.Query().Has)
}

// upstreamPath returns the path and raw query of the upstream endpoint for a
// request of the given model.
func (h *Handler) upstreamPath(upstream codec.Protocol, model string, stream bool) (path, rawQuery string) {
	return upstream.Descriptor().UpstreamPath(h.location, model, stream)
}
