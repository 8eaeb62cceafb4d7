package endpoints

import (
	"net/http"
	"strings"
	"sync"

	"github.com/llmbridge/llmbridge/codec"
)

// Kind names an endpoint other than generation.
type Kind int

const (
	// Models is a model listing: GET …/v1/models (OpenAI and Anthropic)
	// or GET …/v1beta/models (Gemini).
	Models Kind = iota + 1
	// Count is token counting: Anthropic's POST …/v1/messages/count_tokens,
	// Vertex's …/publishers/anthropic/models/count-tokens:rawPredict,
	// Gemini's and Vertex's …/models/{model}:countTokens and Responses'
	// POST …/v1/responses/input_tokens.
	Count
)

// Route is what the request path (and, for a listing, its headers) says
// about a listing or counting request, as the handler's route says it of
// a generation request.
type Route struct {
	// Kind is the endpoint.
	Kind Kind
	// Protocol is the client's protocol; for listings it selects the
	// shape (openai-chat stands for OpenAI's).
	Protocol codec.Protocol
	// Model is the model named in the path (Gemini and Vertex counting).
	Model string
}

// Detect recognises the listing and counting endpoints. configured is the
// client directive's protocol, or "".
//
// GET …/v1/models is shared by OpenAI and Anthropic (and the Gemini API's
// v1): it is answered in Anthropic's shape when the request carries an
// anthropic-version or x-api-key header, in the Gemini API's when it
// carries x-goog-api-key or ?key=, and in OpenAI's otherwise. With the
// client directive set, the configured protocol decides, and endpoints of
// other protocols are not recognised.
func Detect(configured codec.Protocol, r *http.Request) (Route, bool) {
	if p, model, ok := codec.MatchCount(r.URL.Path); ok {
		if configured != "" && p != configured {
			return Route{}, false
		}
		return Route{Kind: Count, Protocol: p, Model: model}, true
	}
	p, ok := listingOf(configured, r)
	if !ok {
		return Route{}, false
	}
	return Route{Kind: Models, Protocol: p}, true
}

// listingPath is a protocol with a model listing, and its path.
type listingPath struct {
	p    codec.Protocol
	path string
}

// listingPaths are the protocols that list models, read once from the
// descriptors (all registered by init functions) rather than per request.
var listingPaths = sync.OnceValue(func() []listingPath {
	var ls []listingPath
	for _, p := range codec.Protocols() {
		if lp := p.Descriptor().Listing.Path; lp != "" {
			ls = append(ls, listingPath{p, lp})
		}
	}
	return ls
})

// listingOf recognises a model listing request and picks the protocol
// whose shape answers it. A listing path of one shape (/v1beta/models) is
// answered in it; a path of several (/v1/models, and /models, which
// matches every listing) in the shape of the configured client protocol,
// else of the protocol the request's headers point at
// (codec.HintedProtocol), else of the first protocol listing there.
func listingOf(configured codec.Protocol, r *http.Request) (codec.Protocol, bool) {
	path := r.URL.Path
	var first codec.Protocol
	shared := false
	for _, l := range listingPaths() {
		if !strings.HasSuffix(path, l.path) && !(path == "/models" && strings.HasSuffix(l.path, "/models")) {
			continue
		}
		if first == "" {
			first = l.p
		} else if !codec.SameModelListShape(first, l.p) {
			shared = true
		}
	}
	switch {
	case first == "":
		return "", false
	case !shared:
		return first, configured == "" || codec.SameModelListShape(configured, first)
	case configured != "":
		return configured, codec.HasModelList(configured)
	}
	if p, ok := codec.HintedProtocol(r.URL.Path, func(h string) bool { return r.Header.Get(h) != "" }, r.URL.Query().Has); ok && codec.HasModelList(p) {
		return p, true
	}
	return first, true
}
