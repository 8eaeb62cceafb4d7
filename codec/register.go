package codec

import (
	"cmp"
	"slices"
)

// Translator is a protocol family's implementation: the translation between
// its wire format and the canonical model, and the paths of its
// generation endpoint. Each family's package under codec/ implements it
// and registers it with its protocols' descriptors in an init function
// (Register), the way image formats and database/sql drivers register: a
// program speaks the protocols whose packages it imports, and codec/all
// imports every one.
//
// Every method gets the protocol it serves, so that one Translator serves the
// protocols of its family (Anthropic's serves anthropic-messages and
// vertex-anthropic). The entry points of this package (DecodeRequest,
// AppendRequest, ...) are how programs call a codec; they add what every
// protocol shares.
type Translator interface {
	// DecodeRequest decodes a request body of protocol p into req (see
	// DecodeRequest).
	DecodeRequest(p Protocol, body []byte, req *Request) error
	// AppendRequest appends req encoded as a request body of p to dst.
	// opts is passed by value: a pointer through an interface call would
	// escape and cost an allocation per request.
	AppendRequest(dst []byte, p Protocol, req *Request, opts EncodeOptions) ([]byte, error)
	// DecodeResponse decodes a non-streamed response body of p into
	// resp.
	DecodeResponse(p Protocol, body []byte, resp *Response) error
	// AppendResponse appends resp encoded as a response body of p for
	// the client's request req, which may be nil.
	AppendResponse(dst []byte, p Protocol, resp *Response, req *Request) ([]byte, error)
	// NewStreamDecoder returns a decoder of upstream streams of p.
	NewStreamDecoder(p Protocol) StreamDecoder
	// NewStreamEncoder returns an encoder of client streams of p for the
	// client's request req.
	NewStreamEncoder(p Protocol, req *Request) StreamEncoder
	// DecodeError reads what p's error object (errObject, the JSON text
	// of the body's "error" member) says beyond its message: its type,
	// status or code.
	DecodeError(p Protocol, errObject string, e *Error)
	// AppendError appends e encoded as p's error body.
	AppendError(dst []byte, p Protocol, e *Error) []byte
	// UpstreamPath returns the path and raw query of p's generation
	// endpoint for model, streamed or not, at location at. The path is
	// escaped: it is sent as it is.
	UpstreamPath(p Protocol, at Location, model string, stream bool) (path, rawQuery string)
	// CheckEvent reports whether an upstream stream event of p (its SSE
	// event name and data; bare for a JSON block outside SSE framing) is
	// one of the protocol's events, and whether it ends the stream. A
	// passthrough calls it for every event (StreamWatcher), so it reads
	// as little of the event as it can.
	CheckEvent(p Protocol, name, data string, bare bool) (valid, terminal bool)
	// ReportsUsage reports whether an upstream stream event of p may hold
	// usage, a stop reason or an error (UsageObserver decodes only
	// those). A false negative loses usage; a false positive costs a
	// decode.
	ReportsUsage(p Protocol, name, data string) bool
}

// ModelLister is implemented by a Translator whose protocols list models
// (Descriptor.Listing).
type ModelLister interface {
	// DecodeModelList reads a model listing of p's listing shape.
	DecodeModelList(p Protocol, body []byte, l *ModelList) error
	// AppendModelList writes l as a model listing of p's listing shape.
	AppendModelList(dst []byte, p Protocol, l *ModelList, opts ModelListOptions) []byte
}

// TokenCounter is implemented by a Translator whose protocols count tokens
// (Descriptor.Counting).
type TokenCounter interface {
	// CountPath returns the path of p's token counting endpoint for
	// model at location at, or "" when p has none.
	CountPath(p Protocol, at Location, model string) string
	// CountedBody returns the generation body (of the protocol
	// Counting.BodyProtocol names, p itself when empty) that body, a
	// counting request of p, counts; body itself when they are the same.
	CountedBody(p Protocol, body []byte) ([]byte, error)
	// AppendCountBody appends the counting request body of p that counts
	// gen, a generation body encoded from req with opts.
	AppendCountBody(dst []byte, p Protocol, gen []byte, req *Request, opts EncodeOptions) []byte
}

// SiblingAdapter is implemented by a Translator whose protocols take bodies of
// a sibling protocol of their family with small edits (AdaptSibling).
type SiblingAdapter interface {
	// AdaptSibling returns body, a request body of protocol from, adapted
	// to p; model is the model it goes to, and stream whether the client
	// asked for a stream (in its body or its path).
	AdaptSibling(p Protocol, body []byte, from Protocol, model string, stream bool) ([]byte, error)
}

// FramingErrorDecoder is implemented by a Translator whose protocols' stream
// framing carries errors of its own beside the protocol's events (an AWS
// event stream's exception messages; DecodeFramingError).
type FramingErrorDecoder interface {
	// DecodeFramingError returns the error that a stream event of p (its
	// SSE event name and data, as the framing layer names them) stands
	// for, or nil for an event of the protocol's own. Its strings are
	// copies.
	DecodeFramingError(p Protocol, name, data string) *Error
}

// MetricsReporter is implemented by a Translator whose protocols report usage
// and latency beside the answer (Descriptor.MetricsHeaders), in streams
// within their last event (AppendStreamMetrics).
type MetricsReporter interface {
	// AppendStreamMetrics appends the members with which the last event
	// of p's streams reports usage u and latency lat; dst unchanged for a
	// protocol without them.
	AppendStreamMetrics(dst []byte, p Protocol, u *Usage, lat *Latency) []byte
}

// StatusMapper is implemented by a Translator whose protocols' clients read
// statuses other clients do not (Anthropic's 529 for an overloaded
// server, which the others get as 503, the status their SDKs retry).
type StatusMapper interface {
	// ClientStatus returns the HTTP status with which e is sent to a
	// client of p (ClientStatus).
	ClientStatus(p Protocol, e *Error) int
}

// ErrorBodyChecker is implemented by a Translator whose protocols' error
// bodies take a shape besides one error object (Gemini's JSON array of
// error objects; IsProtocolBody).
type ErrorBodyChecker interface {
	// IsErrorBody reports whether body, an upstream answer of p with an
	// error status that is not a JSON object, is one of p's error bodies.
	IsErrorBody(p Protocol, body string) bool
}

// registered is every registered protocol, in the order Protocols returns
// them. Registration happens in init functions only, before any lookup.
var registered []*Descriptor

// protocolOrder is the order of the protocols this module names;
// protocols registered by other packages follow, by name.
var protocolOrder = []Protocol{OpenAIChat, OpenAIResponses, AnthropicMessages, Gemini, Vertex, VertexAnthropic, AzureOpenAI, AzureOpenAIResponses, Bedrock, BedrockAnthropic}

// Register makes the protocol d describes available, implemented by c. It
// is called from the init functions of codec packages, and panics when
// d.Name is empty or already registered, c is nil, d.Family names a
// protocol that is not registered (a family registers the protocol that
// names it before its siblings), or d has no model rules (Rules.Provider
// and every name of Rules.Params; a sibling whose Rules are zero takes its
// family's).
func Register(d Descriptor, c Translator) {
	if d.Name == "" || c == nil || d.Name.Descriptor() != nil {
		panic("codec: cannot register protocol " + string(d.Name))
	}
	if d.Family == "" {
		d.Family = d.Name
	}
	if d.Family != d.Name {
		f := d.Family.Descriptor()
		if f == nil {
			panic("codec: protocol " + string(d.Name) + " names family " + string(d.Family) + ", which is not registered")
		}
		if d.Rules == (ModelRules{}) {
			d.Rules = f.Rules
		}
	}
	if d.Rules.Provider == "" || !d.Rules.Params.complete() {
		panic("codec: protocol " + string(d.Name) + " declares no model rules (Descriptor.Rules)")
	}
	d.codec = c
	d.lister, _ = c.(ModelLister)
	d.counter, _ = c.(TokenCounter)
	d.sibling, _ = c.(SiblingAdapter)
	d.fitter, _ = c.(BodyFitter)
	d.framingErrors, _ = c.(FramingErrorDecoder)
	d.metrics, _ = c.(MetricsReporter)
	d.statuses, _ = c.(StatusMapper)
	d.errorBodies, _ = c.(ErrorBodyChecker)
	registered = append(registered, &d)
	slices.SortStableFunc(registered, func(a, b *Descriptor) int {
		ia, ib := orderOf(a.Name), orderOf(b.Name)
		if ia != ib {
			return cmp.Compare(ia, ib)
		}
		return cmp.Compare(a.Name, b.Name)
	})
	gatherForeignHeaders()
}

// orderOf is p's place in protocolOrder, or after every one there.
func orderOf(p Protocol) int {
	if i := slices.Index(protocolOrder, p); i >= 0 {
		return i
	}
	return len(protocolOrder)
}

// gatherForeignHeaders sets each descriptor's foreignHeaders: the
// FamilyHeaders of the other families.
func gatherForeignHeaders() {
	for _, d := range registered {
		d.foreignHeaders = d.foreignHeaders[:0]
		for _, o := range registered {
			if o.Family == d.Family {
				continue
			}
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

// codecOf returns the codec of protocol p, or an error naming an unknown
// protocol.
func codecOf(p Protocol) (Translator, *Error) {
	if d := p.Descriptor(); d != nil {
		return d.codec, nil
	}
	return nil, InvalidRequest("", "unknown protocol "+string(p))
}

// BodyFitter is implemented by a Translator that can fit a body that passes
// through untranslated to a model rule (FitBody).
type BodyFitter interface {
	// FitBody rewrites, in body, a request of p, the fields params name
	// (the request parameters a model rule changed) from req, the body
	// decoded and fitted to the routed model whose Target is target;
	// every other byte is kept.
	FitBody(p Protocol, body []byte, req *Request, params []string, target Target) ([]byte, error)
}
