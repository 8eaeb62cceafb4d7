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

// detectRoute recognises a generation endpoint from the request path, by
// the protocols' descriptors (codec.MatchRoute).
func detectRoute(path string) (route, bool) {
	p, model, stream, ok := codec.MatchRoute(path)
	return route{protocol: p, model: model, stream: stream}, ok
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
	return h.upstream.Descriptor().UpstreamPath(h.location(), model, stream)
}

// location is where the configured cloud upstream places its models.
func (h *Handler) location() codec.Location {
	return codec.Location{Project: h.VertexProject, Region: h.VertexLocation}
}
