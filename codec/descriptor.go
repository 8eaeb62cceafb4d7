package codec

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Descriptor is what llmbridge knows about a wire protocol beside its
// codec: how a client's generation request is recognised, where a request
// to an upstream of the protocol goes, and how the protocol carries the
// credential and the model. The HTTP layer reads descriptors instead of
// switching on protocol names, so that a protocol is described in one
// place.
type Descriptor struct {
	// Name is the protocol's name in configuration, errors, logs and
	// metrics.
	Name Protocol
	// Family is the wire format the protocol shares with its siblings;
	// two protocols of one family pass through with small edits.
	Family Protocol
	// ModelInPath reports that the model travels in the URL path, not in
	// the request body.
	ModelInPath bool
	// Located reports that the upstream's paths name a cloud Location
	// (Vertex AI's project and region), which must be configured.
	Located bool
	// Route describes the paths of the protocol's generation endpoint.
	Route Route
	// Credential is where the protocol carries an API key.
	Credential Credential
	// Headers are protocol headers an upstream requires, set when the
	// client sent none (a name and a value each).
	Headers [][2]string
	// FamilyHeaders are headers only servers of the protocol's family
	// read; they are removed from requests to an upstream of another
	// family.
	FamilyHeaders []string
	// DropHeaders are headers of its family the protocol does not take
	// (Anthropic on Vertex has its version in the body).
	DropHeaders []string
	// Betas are the anthropic-beta values the protocol's servers accept;
	// nil accepts any. Others are removed from requests and reported.
	Betas map[string]bool
	// ErrorParam reports that the protocol's error format names the
	// offending field in a param slot of its own (OpenAI's); the others
	// get the path at the start of the message.
	ErrorParam bool
	// Dialects reports that servers of other vendors speak the protocol
	// with departures of their own (OpenAI-compatible servers), which a
	// dialect setting describes.
	Dialects bool
	// Counting describes the protocol's token counting endpoint, which
	// exists when CountPath gives a path.
	Counting Counting
	// Listing describes the protocol's model listing; the zero Listing
	// means it has none.
	Listing Listing

	// upstreamPath returns the path and raw query of the generation
	// endpoint for model.
	upstreamPath func(at Location, model string, stream bool) (path, rawQuery string)
	// countPath returns the path of the token counting endpoint for
	// model, or "" when the protocol has none.
	countPath func(at Location, model string) string
	// countBody turns a counting request body (its root object) into
	// the generation body it counts; nil when they are the same.
	countBody func(root gjson.Result) ([]byte, *Error)
	// countProtocol is the protocol the generation body of a count is
	// decoded and encoded as, when it is not the protocol itself.
	countProtocol Protocol
	// countFrame writes the counting request body of a generation body.
	countFrame func(dst []byte, gen gjson.Result, req *Request, opts *EncodeOptions) []byte
	// foreignHeaders are the FamilyHeaders of the other families
	// (ForeignHeaders), gathered once.
	foreignHeaders []string
	// wire is the protocol's codec (registerWire).
	wire *wireCodec
	// fromSibling adapts a body of a sibling protocol (AdaptSibling).
	fromSibling func(body []byte, from Protocol, model string) ([]byte, error)
}

// Route describes a protocol's generation paths. A path is matched by its
// tail, so that an API mounted under a prefix (/openai/v1/chat/completions)
// is recognised.
type Route struct {
	// Suffixes are path tails naming the endpoint; the model is in the
	// body.
	Suffixes []string
	// Paths are whole paths naming the endpoint.
	Paths []string
	// Models is the tail of the collection whose members are models, in
	// paths of the form …{Models}/{model}:{method}; Method and
	// StreamMethod are the methods that generate, without and with a
	// stream.
	Models, Method, StreamMethod string
}

// Credential is where a protocol carries an API key.
type Credential struct {
	// Header is the header holding the bare key; empty means
	// Authorization: Bearer.
	Header string
	// Query is a URL query parameter that may hold the key instead, or
	// empty.
	Query string
	// AlsoBearer reports that clients may send Authorization: Bearer
	// instead of Header (Anthropic's auth tokens).
	AlsoBearer bool
}

// Counting describes a protocol's token counting endpoint.
type Counting struct {
	// ModelInPath reports that the counting path names the model (the
	// Gemini API, Vertex); otherwise the model is in the body (Anthropic
	// on Vertex counts at a fixed path).
	ModelInPath bool
	// ModelOptional reports that a count needs no model (Responses
	// counts for its default model).
	ModelOptional bool
	// Member is the answer's member holding the count, and Object the
	// answer's "object" value, if it has one.
	Member, Object string
	// OmitsZero reports that an answer without Member counts zero
	// (Google's JSON leaves out zero values).
	OmitsZero bool
}

// Listing describes a protocol's model listing endpoint (GET).
type Listing struct {
	// Path is the listing's path, empty when the protocol has none.
	Path string
	// Shape is the protocol whose listing format the listing has: both
	// OpenAI protocols list models as openai-chat.
	Shape Protocol
	// PageSize is the query parameter that sets a page's size, and
	// Paging the parameters that page through the listing, empty when
	// the listing has no pages.
	PageSize string
	Paging   []string
}

// Location is what a cloud upstream's paths name beside the model: its
// project and region.
type Location struct {
	Project, Region string
}

// ForeignHeaders returns the headers that only servers of other families
// read (their FamilyHeaders): a request to an upstream of d's protocol
// goes without them. The slice is shared; callers must not modify it.
func (d *Descriptor) ForeignHeaders() []string { return d.foreignHeaders }

func init() {
	for i := range descriptors {
		d := &descriptors[i]
		for j := range descriptors {
			if o := &descriptors[j]; o.Family != d.Family {
				for _, h := range o.FamilyHeaders {
					// Both OpenAI protocols read OpenAI's headers, though
					// each is a family of its own.
					if !slices.Contains(d.foreignHeaders, h) && !slices.Contains(d.FamilyHeaders, h) {
						d.foreignHeaders = append(d.foreignHeaders, h)
					}
				}
			}
		}
	}
}

// countAs is the protocol a count's generation body is read and written
// as.
func (d *Descriptor) countAs() Protocol {
	if d.countProtocol != "" {
		return d.countProtocol
	}
	return d.Name
}

// UpstreamPath returns the path and raw query of d's generation endpoint
// for model, streamed or not, at location at.
func (d *Descriptor) UpstreamPath(at Location, model string, stream bool) (path, rawQuery string) {
	return d.upstreamPath(at, model, stream)
}

// CountPath returns the path of d's token counting endpoint for model at
// location at, or "" when the protocol has none.
func (d *Descriptor) CountPath(at Location, model string) string {
	if d.countPath == nil {
		return ""
	}
	return d.countPath(at, model)
}

// descriptors are the protocols' descriptors, in the order Protocols
// returns them.
var descriptors = [...]Descriptor{
	{
		Name: OpenAIChat, Family: OpenAIChat,
		Route:         Route{Suffixes: []string{"/chat/completions"}},
		ErrorParam:    true,
		Dialects:      true,
		FamilyHeaders: openAIHeaders,
		Listing:       openAIModelList,
		upstreamPath:  fixedPath("/v1/chat/completions"),
	},
	{
		Name: OpenAIResponses, Family: OpenAIResponses,
		// Responses and Messages need their /v1: /v1/threads/{id}/messages
		// is OpenAI's Assistants API, not Anthropic's.
		Route:         Route{Suffixes: []string{"/v1/responses"}, Paths: []string{"/responses"}},
		ErrorParam:    true,
		Dialects:      true,
		Counting:      Counting{ModelOptional: true, Member: "input_tokens", Object: "response.input_tokens"},
		FamilyHeaders: openAIHeaders,
		Listing:       openAIModelList,
		upstreamPath:  fixedPath("/v1/responses"),
		countPath:     func(Location, string) string { return "/v1/responses/input_tokens" },
		countFrame:    responsesCountFrame,
	},
	{
		Name: AnthropicMessages, Family: AnthropicMessages,
		Route:         Route{Suffixes: []string{"/v1/messages"}, Paths: []string{"/messages"}},
		Credential:    Credential{Header: "X-Api-Key", AlsoBearer: true},
		Headers:       [][2]string{{"Anthropic-Version", "2023-06-01"}},
		FamilyHeaders: anthropicHeaders,
		Counting:      Counting{Member: "input_tokens"},
		Listing:       Listing{Path: "/v1/models", Shape: AnthropicMessages, PageSize: "limit", Paging: []string{"limit", "after_id", "before_id"}},
		upstreamPath:  fixedPath("/v1/messages"),
		fromSibling:   anthropicFromVertex,
		countPath:     func(Location, string) string { return "/v1/messages/count_tokens" },
		countFrame:    anthropicCountFrame,
	},
	{
		Name: Gemini, Family: Gemini, ModelInPath: true,
		Route:      Route{Models: "/models", Method: "generateContent", StreamMethod: "streamGenerateContent"},
		Credential: Credential{Header: "X-Goog-Api-Key", Query: "key"},
		Counting:   Counting{ModelInPath: true, Member: "totalTokens", OmitsZero: true},
		Listing:    Listing{Path: "/v1beta/models", Shape: Gemini, PageSize: "pageSize", Paging: []string{"pageSize", "pageToken"}},
		upstreamPath: func(_ Location, model string, stream bool) (string, string) {
			return methodPath("/v1beta/models/"+model, ":generateContent", ":streamGenerateContent", "alt=sse", stream)
		},
		countPath:  func(_ Location, model string) string { return "/v1beta/models/" + model + ":countTokens" },
		countBody:  geminiCountBody,
		countFrame: geminiCountFrame,
	},
	{
		Name: Vertex, Family: Gemini, ModelInPath: true, Located: true,
		Counting: Counting{ModelInPath: true, Member: "totalTokens", OmitsZero: true},
		Route:    Route{Models: "/publishers/google/models", Method: "generateContent", StreamMethod: "streamGenerateContent"},
		upstreamPath: func(at Location, model string, stream bool) (string, string) {
			return methodPath(vertexModel(at, "google", model), ":generateContent", ":streamGenerateContent", "alt=sse", stream)
		},
		countPath:   func(at Location, model string) string { return vertexModel(at, "google", model) + ":countTokens" },
		countBody:   geminiCountBody,
		countFrame:  vertexCountFrame,
		fromSibling: vertexFromGemini,
	},
	{
		Name: VertexAnthropic, Family: AnthropicMessages, ModelInPath: true, Located: true,
		Route:         Route{Models: "/publishers/anthropic/models", Method: "rawPredict", StreamMethod: "streamRawPredict"},
		FamilyHeaders: anthropicHeaders,
		Counting:      Counting{Member: "input_tokens"},
		// The version travels in the body (anthropic_version) on Vertex.
		DropHeaders: []string{"Anthropic-Version"},
		// Vertex answers a request with an anthropic-beta value it does
		// not carry with a 400 ("Unexpected value(s) ... for the
		// anthropic-beta header").
		Betas: vertexBetas,
		upstreamPath: func(at Location, model string, stream bool) (string, string) {
			return methodPath(vertexModel(at, "anthropic", model), ":rawPredict", ":streamRawPredict", "", stream)
		},
		countPath: func(at Location, _ string) string {
			return vertexModel(at, "anthropic", "count-tokens") + ":rawPredict"
		},
		countBody:     vertexAnthropicCountBody,
		countProtocol: AnthropicMessages,
		countFrame:    vertexAnthropicCountFrame,
		fromSibling:   vertexAnthropicFromFirstParty,
	},
}

// vertexBetas are the anthropic-beta values Anthropic on Vertex AI is
// known to accept: the ones Claude Code's own Vertex mode sends, and
// context management.
var vertexBetas = map[string]bool{
	"claude-code-20250219":            true,
	"interleaved-thinking-2025-05-14": true,
	"context-management-2025-06-27":   true,
	"tool-search-tool-2025-10-19":     true,
	"web-search-2025-03-05":           true,
}

// openAIModelList is the model listing of both OpenAI protocols.
var openAIModelList = Listing{Path: "/v1/models", Shape: OpenAIChat}

// The headers only one family's servers read.
var (
	openAIHeaders    = []string{"Openai-Organization", "Openai-Project", "Openai-Beta"}
	anthropicHeaders = []string{"Anthropic-Version", "Anthropic-Beta"}
)

// fixedPath is the upstreamPath of a protocol whose endpoint does not
// depend on the model.
func fixedPath(path string) func(Location, string, bool) (string, string) {
	return func(Location, string, bool) (string, string) { return path, "" }
}

// methodPath is the path of a model's generation method, streamed or not;
// streamQuery is the raw query a stream needs.
func methodPath(model, method, streamMethod, streamQuery string, stream bool) (string, string) {
	if stream {
		return model + streamMethod, streamQuery
	}
	return model + method, ""
}

// vertexModel is the path of a publisher's model on Vertex AI.
func vertexModel(at Location, publisher, model string) string {
	return "/v1/projects/" + at.Project + "/locations/" + at.Region + "/publishers/" + publisher + "/models/" + model
}

// Descriptor returns p's descriptor. Every Protocol constant has one; the
// result for any other value is nil.
func (p Protocol) Descriptor() *Descriptor {
	for i := range descriptors {
		if descriptors[i].Name == p {
			return &descriptors[i]
		}
	}
	return nil
}

// MatchRoute recognises a client's generation request from its path: the
// protocol, the model a model path names, and whether its method streams.
// Of the model collections a path could belong to, the longest match
// wins (…/publishers/google/models/… is Vertex, not the Gemini API).
func MatchRoute(path string) (p Protocol, model string, stream, ok bool) {
	for i := range descriptors {
		r := &descriptors[i].Route
		for _, s := range r.Suffixes {
			if strings.HasSuffix(path, s) {
				return descriptors[i].Name, "", false, true
			}
		}
		for _, s := range r.Paths {
			if path == s {
				return descriptors[i].Name, "", false, true
			}
		}
	}
	colon := strings.LastIndexByte(path, ':')
	if colon < 0 {
		return "", "", false, false
	}
	method, rest := path[colon+1:], path[:colon]
	slash := strings.LastIndexByte(rest, '/')
	if slash < 0 || slash == len(rest)-1 {
		return "", "", false, false
	}
	model, parent := rest[slash+1:], rest[:slash]
	var best *Descriptor
	for i := range descriptors {
		r := &descriptors[i].Route
		if r.Models != "" && strings.HasSuffix(parent, r.Models) && (best == nil || len(r.Models) > len(best.Route.Models)) {
			best = &descriptors[i]
		}
	}
	switch {
	case best == nil:
		return "", "", false, false
	case method == best.Route.Method:
		return best.Name, model, false, true
	case method == best.Route.StreamMethod:
		return best.Name, model, true, true
	}
	return "", "", false, false
}
