package codec

import (
	"strings"

	"github.com/llmbridge/llmbridge/mapping"
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
	// ModelEscaped reports that UpstreamPath escapes the model as one
	// path segment (Bedrock's, where an inference profile's ARN holds '/'
	// and ':'), so that any model names one path segment.
	ModelEscaped bool
	// Located reports that the upstream's paths name a cloud Location
	// (Vertex AI's project and region), which must be configured.
	Located bool
	// Cloud names the cloud whose credentials authenticate to the
	// protocol's upstreams beside an API key ("google" for Vertex AI,
	// "azure" for Azure OpenAI, "aws" for Amazon Bedrock), or "".
	Cloud string
	// Framing is how the protocol's streams are framed on the wire. Its
	// stream codecs read and write SSE text whatever the framing: the
	// HTTP layer converts at the edges (package sse/eventstream).
	Framing Framing
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
	// BodyBetas is the request body member in which the protocol carries
	// anthropic-beta values, as an array of strings, instead of the
	// Anthropic-Beta header (Bedrock's anthropic_beta), or "".
	BodyBetas string
	// Betas are the anthropic-beta values the protocol's servers accept;
	// nil accepts any. Others are removed from requests and reported.
	Betas map[string]bool
	// BodyOnlyBetas are anthropic-beta values the protocol's servers take
	// only in the body's anthropic_beta array, not in the header (Vertex
	// AI: context-1m-2025-08-07); they are moved there.
	BodyOnlyBetas map[string]bool
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
	// VendorModel, for a cloud whose model ids decorate the vendor's
	// model name (Bedrock's us.anthropic.claude-sonnet-4-5-20250929-v1:0),
	// returns the vendor's name (claude-sonnet-4-5-20250929), which an
	// upstream outside the cloud knows the model by; nil for others.
	VendorModel func(model string) string
	// Alternates are protocols in other wire formats that an upstream of
	// this protocol also serves (Azure OpenAI's Responses API beside its
	// Chat Completions): a client whose wire family is an alternate's is
	// sent there in its own format instead of being translated.
	Alternates []Protocol
	// Rules is what the model rules need to know of the protocol; a
	// sibling's zero Rules are its family's.
	Rules ModelRules
	// Fields is the field table of the family's client bodies: every
	// top-level field its decoder knows, and the nested fields and
	// content kinds whose class differs from their container's. It is
	// set on the protocol that names the family (its siblings share it)
	// and generated from the annotations beside the decoder's dispatch
	// (codec/internal/fieldgen).
	Fields []Field
	// Origin is the provider family whose opaque reasoning values the
	// protocol issues and accepts (signatures, encrypted content), or
	// mapping.FamilyNone when it has none.
	Origin mapping.Family
	// ResponseModel are where the protocol's response bodies and stream
	// events name the model, in the order they are tried; a passthrough
	// that routed the model restores the client's name there.
	ResponseModel []string
	// CacheBreakpoints reports that the protocol's clients place their own
	// prompt-cache breakpoints (Anthropic's cache_control, Converse's
	// cachePoint): their choice, none included, stands, and they get no
	// automatic caching (CachePolicy).
	CacheBreakpoints bool
	// ErrorAtRoot reports that the protocol's error bodies are the error
	// object itself (AWS's {"message": …, "__type": …}), not an object
	// under "error".
	ErrorAtRoot bool
	// MetricsHeaders reports that the protocol's non-streamed answers
	// carry their usage and latency in headers as well (Bedrock
	// InvokeModel's X-Amzn-Bedrock-Input-Token-Count, -Output-Token-Count
	// and -Invocation-Latency), and its streams in the last chunk.
	MetricsHeaders bool
	// ErrorTypeHeader is a response header that carries an error's type
	// beside the body (AWS's X-Amzn-Errortype), or "".
	ErrorTypeHeader string
	// PathHints are path fragments that only the protocol's requests
	// carry (a Vertex project path, the Gemini API's /v1beta/), which
	// suggest the protocol for a request that matches no route
	// (HintedProtocol): its error then comes in the format its client
	// reads.
	PathHints []string

	// foreignHeaders are the FamilyHeaders of the other families
	// (ForeignHeaders), gathered at registration.
	foreignHeaders []string
	// codec implements the protocol, and lister, counter, sibling,
	// fitter, framingErrors, metrics, statuses and errorBodies are its
	// optional parts (Register).
	codec         Translator
	lister        ModelLister
	counter       TokenCounter
	sibling       SiblingAdapter
	fitter        BodyFitter
	framingErrors FramingErrorDecoder
	metrics       MetricsReporter
	statuses      StatusMapper
	errorBodies   ErrorBodyChecker
}

// Framing is how a protocol's streams are framed on the wire.
type Framing uint8

// The stream framings.
const (
	// FramingSSE is Server-Sent Events (text/event-stream).
	FramingSSE Framing = iota
	// FramingEventStream is an AWS event stream
	// (application/vnd.amazon.eventstream) whose messages are the
	// protocol's events, named by their :event-type (Bedrock's
	// ConverseStream); exceptions are SSE events named
	// "exception:<type>".
	FramingEventStream
	// FramingEventChunks is an AWS event stream whose chunk events carry
	// the protocol's events, each event's JSON base64-encoded in the
	// chunk's bytes member (Bedrock's InvokeModelWithResponseStream);
	// the SSE event is named by the JSON's type member.
	FramingEventChunks
)

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
	// MethodSegment reports that the method is the path segment after
	// the model, in paths of the form {Models}/{model}/{method} (Amazon
	// Bedrock's /model/{modelId}/converse), where the model may hold
	// slashes (an inference profile's ARN) and colons.
	MethodSegment bool
	// Deployments is a collection whose members name the model in paths
	// of the form …{Deployments}/{model}{suffix} (Azure OpenAI's
	// /openai/deployments), for a route matched by one of its Suffixes.
	Deployments string
	// Excludes are path fragments that make a path another API's even
	// when its tail matches (the Gemini API's …/models/{model} is not a
	// Vertex publisher's …/publishers/{p}/models/{model}).
	Excludes []string
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
	// AlsoHeader is a header clients may send the bare key in instead of
	// Authorization: Bearer (Azure OpenAI's api-key, which Azure clients
	// of the OpenAI protocols send).
	AlsoHeader string
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
	// Route describes the paths of the counting endpoint that clients
	// call.
	Route Route
	// BodyProtocol is the protocol whose generation body a count
	// carries, when it is not the protocol itself (Anthropic on Vertex
	// counts first-party Messages bodies).
	BodyProtocol Protocol
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
	// APIVersion is the API version an upstream's paths name (Azure
	// OpenAI's api-version); empty for its versionless paths.
	APIVersion string
}

// ForeignHeaders returns the headers that only servers of other families
// read (their FamilyHeaders): a request to an upstream of d's protocol
// goes without them. The slice is shared; callers must not modify it.
func (d *Descriptor) ForeignHeaders() []string { return d.foreignHeaders }

// UpstreamPath returns the path, escaped, and raw query of d's generation
// endpoint for model, streamed or not, at location at.
func (d *Descriptor) UpstreamPath(at Location, model string, stream bool) (path, rawQuery string) {
	return d.codec.UpstreamPath(d.Name, at, model, stream)
}

// CountPath returns the path of d's token counting endpoint for model at
// location at, or "" when the protocol has none.
func (d *Descriptor) CountPath(at Location, model string) string {
	if d.counter == nil {
		return ""
	}
	return d.counter.CountPath(d.Name, at, model)
}

// countAs is the protocol a count's generation body is read and written
// as.
func (d *Descriptor) countAs() Protocol {
	if d.Counting.BodyProtocol != "" {
		return d.Counting.BodyProtocol
	}
	return d.Name
}

// Descriptor returns the descriptor of p, or nil when no protocol of
// that name is registered.
func (p Protocol) Descriptor() *Descriptor {
	for _, d := range registered {
		if d.Name == p {
			return d
		}
	}
	return nil
}

// MatchRoute recognises a client's generation request from its path: the
// protocol, the model a model path names, and whether its method streams.
// Of the model collections a path could belong to, the longest match
// wins (…/publishers/google/models/… is Vertex, not the Gemini API).
func MatchRoute(path string) (p Protocol, model string, stream, ok bool) {
	return matchRoute(path, func(d *Descriptor) *Route { return &d.Route })
}

// MatchCount recognises a client's token counting request from its path
// (Counting.Route): the protocol, and the model a model path names.
func MatchCount(path string) (p Protocol, model string, ok bool) {
	p, model, stream, ok := matchRoute(path, func(d *Descriptor) *Route {
		if d.counter == nil {
			return nil
		}
		return &d.Counting.Route
	})
	return p, model, ok && !stream
}

// matchRoute matches path against the route of each protocol that routeOf
// gives (nil for none).
func matchRoute(path string, routeOf func(*Descriptor) *Route) (p Protocol, model string, stream, ok bool) {
	for _, d := range registered {
		r := routeOf(d)
		if r == nil || r.excludes(path) {
			continue
		}
		for _, s := range r.Suffixes {
			if strings.HasSuffix(path, s) {
				return d.Name, r.deployment(path[:len(path)-len(s)]), false, true
			}
		}
		for _, s := range r.Paths {
			if path == s {
				return d.Name, "", false, true
			}
		}
	}
	if p, model, stream, ok := matchMethodSegment(path, routeOf); ok {
		return p, model, stream, true
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
	var bestRoute *Route
	for _, d := range registered {
		r := routeOf(d)
		if r == nil || r.Models == "" || r.excludes(path) || !strings.HasSuffix(parent, r.Models) {
			continue
		}
		if best == nil || len(r.Models) > len(bestRoute.Models) {
			best, bestRoute = d, r
		}
	}
	switch {
	case best == nil:
		return "", "", false, false
	case method == bestRoute.Method:
		return best.Name, model, false, true
	case method == bestRoute.StreamMethod && method != "":
		return best.Name, model, true, true
	}
	return "", "", false, false
}

// matchMethodSegment matches path against the routes whose method is the
// segment after the model: …{Models}/{model}/{method}, where the first
// {Models}/ in the path starts the model (an API mounted under a prefix
// is recognised; a model may hold slashes).
func matchMethodSegment(path string, routeOf func(*Descriptor) *Route) (p Protocol, model string, stream, ok bool) {
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 {
		return "", "", false, false
	}
	method, rest := path[slash+1:], path[:slash]
	for _, d := range registered {
		r := routeOf(d)
		if r == nil || !r.MethodSegment {
			continue
		}
		at := strings.Index(rest, r.Models+"/")
		if at < 0 || at+len(r.Models)+1 == len(rest) {
			continue
		}
		model = rest[at+len(r.Models)+1:]
		switch method {
		case r.Method:
			return d.Name, model, false, true
		case r.StreamMethod:
			return d.Name, model, true, true
		}
	}
	return "", "", false, false
}

// deployment returns the model that rest, a path without its route
// suffix, names as a member of r's Deployments, or "".
func (r *Route) deployment(rest string) string {
	if r.Deployments == "" {
		return ""
	}
	slash := strings.LastIndexByte(rest, '/')
	if slash < 0 || !strings.HasSuffix(rest[:slash], r.Deployments) {
		return ""
	}
	return rest[slash+1:]
}

// excludes reports whether path holds one of r's Excludes.
func (r *Route) excludes(path string) bool {
	for _, x := range r.Excludes {
		if strings.Contains(path, x) {
			return true
		}
	}
	return false
}

// HintedProtocol returns the protocol that a request's path or headers
// point at when its path is not one of a protocol's routes: the one with
// the longest of its PathHints in path, else the first whose credential
// header, credential query parameter or required headers the request
// carries (has reports whether it carries a header, query whether its
// URL has a query parameter). It returns false when nothing points
// anywhere.
func HintedProtocol(path string, has, query func(name string) bool) (Protocol, bool) {
	var best *Descriptor
	bestLen := 0
	for _, d := range registered {
		for _, h := range d.PathHints {
			if len(h) > bestLen && strings.Contains(path, h) {
				best, bestLen = d, len(h)
			}
		}
	}
	if best != nil {
		return best.Name, true
	}
	for _, d := range registered {
		c := &d.Credential
		if c.Header != "" && has(c.Header) || c.Query != "" && query(c.Query) {
			return d.Name, true
		}
		for _, h := range d.Headers {
			if has(h[0]) {
				return d.Name, true
			}
		}
	}
	return "", false
}
