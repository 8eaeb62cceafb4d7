package endpoints

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Host is the handler as the listing and counting endpoints see it: what
// it knows of its upstream, and the steps of a request that are the same
// for every endpoint it serves (the body read, the upstream call made and
// its answer checked, refusals written), so that each is done one way.
type Host interface {
	// UpstreamProtocol is the protocol of the site's upstream.
	UpstreamProtocol() codec.Protocol

	// RouteModel returns the upstream's name of model, which a client
	// of protocol client named, and whether a model route of the site
	// named it.
	RouteModel(client codec.Protocol, model string) (upstream string, routed bool)

	// EncodeOptions returns the options a request for the upstream's
	// model is encoded with (the site's default max_tokens).
	EncodeOptions(model string) codec.EncodeOptions

	// ReadBody reads r's body, within the site's max_request_body, into
	// a pooled buffer the caller gives back (pool.Put) whatever the
	// error.
	ReadBody(r *http.Request) (*[]byte, *codec.Error)

	// CountPath returns the upstream's token counting path for model,
	// where the site's cloud has it, or why model cannot be placed in
	// that path.
	CountPath(model string) (string, *codec.Error)

	// Prepare readies r, from a client of protocol client, for the
	// upstream: body, when not nil, becomes its body; its headers and
	// credentials become the upstream's (the key x was given); it is
	// pointed at path and rawQuery.
	Prepare(r *http.Request, x *observe.Exchange, client codec.Protocol, body []byte, path, rawQuery string) *codec.Error

	// ReportDropped publishes the request fields a translation dropped:
	// the Llmbridge-Dropped header, a debug log line and the metric.
	ReportDropped(w http.ResponseWriter, paths []string)

	// Fail answers e in protocol p's error format and notes it in x as
	// an error of llmbridge's own.
	Fail(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error)

	// Forward calls the upstream with r through next, collects its
	// answer and answers the client of protocol client: a JSON success
	// with what translate appends to out from its body, anything else as
	// the handler answers it (the upstream's error in the client's
	// format, a broken or unreachable answer as a 5xx).
	Forward(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, x *observe.Exchange, client codec.Protocol, translate func(body, out []byte) ([]byte, error))
}

// Serve answers rt, a listing or counting request (Detect), through host.
// x is the request's exchange, which the host publishes. Every outcome is
// answered to the client, an upstream's failure included, so there is no
// error to return.
func Serve(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt Route, x *observe.Exchange, host Host) {
	if rt.Kind == Models {
		serveModels(w, r, next, rt, x, host)
		return
	}
	serveCount(w, r, next, rt, x, host)
}

// notSupported is the answer to an endpoint the upstream protocol has no
// counterpart of. It is a 400, not a 5xx: SDKs retry server errors, and
// retrying cannot help.
func notSupported(what string, upstream codec.Protocol) *codec.Error {
	return codec.NewError(mapping.ErrInvalidRequest, what+" is not supported by this gateway: its upstream protocol "+string(upstream)+" has no "+what+" endpoint")
}

// maxListingPage is the page size asked of Anthropic and Gemini upstreams
// for a client of another shape, which cannot ask for the next page: the
// largest both accept.
const maxListingPage = "1000"

// serveModels answers a model listing from the upstream's listing: GET
// /v1/models (OpenAI, Anthropic) or /v1beta/models (Gemini). A listing of
// the client's own shape passes unchanged, with the client's paging
// parameters; any other is translated, from one page of up to 1000 models.
// Vertex upstreams have no listing: the client is told so in its format.
// The ids are the upstream's: model rules are not applied to listings.
func serveModels(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt Route, x *observe.Exchange, host Host) {
	client, upstream := rt.Protocol, host.UpstreamProtocol()
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		host.Fail(w, x, client, codec.NewError(mapping.ErrMethodNotAllowed, "method "+r.Method+" is not allowed; use GET"))
		return
	}
	if !codec.HasModelList(upstream) {
		host.Fail(w, x, client, notSupported("model listing", upstream))
		return
	}
	same := codec.SameModelListShape(client, upstream)
	in, query := r.URL.Query(), url.Values{}
	listing := upstream.Descriptor().Listing
	if listing.PageSize != "" {
		query.Set(listing.PageSize, maxListingPage)
	}
	if same {
		for _, k := range listing.Paging {
			if v := in.Get(k); v != "" {
				query.Set(k, v)
			}
		}
	}
	// A listing is a GET: nothing of the client's body goes upstream.
	r.Body = http.NoBody
	r.GetBody = nil
	r.ContentLength = 0
	r.Header.Del("Content-Length")
	if cerr := host.Prepare(r, x, client, nil, listing.Path, query.Encode()); cerr != nil {
		host.Fail(w, x, client, cerr)
		return
	}
	r.Header.Del("Content-Type")
	host.Forward(w, r, next, x, client, func(body, out []byte) ([]byte, error) {
		if same {
			return append(out, body...), nil
		}
		l, err := codec.DecodeModelList(upstream, body)
		if err != nil {
			return out, err
		}
		return codec.AppendModelList(out, client, l, codec.ModelListOptions{Methods: geminiMethods(upstream)}), nil
	})
}

// geminiMethods are the supportedGenerationMethods of a model listed to a
// Gemini client from another upstream: what llmbridge serves toward it.
func geminiMethods(upstream codec.Protocol) []string {
	if codec.HasTokenCount(upstream) {
		return []string{"generateContent", "streamGenerateContent", "countTokens"}
	}
	return []string{"generateContent", "streamGenerateContent"}
}

// serveCount answers a token counting request. Between protocols it is
// translated as the generation request it counts (codec.DecodeCountRequest
// and codec.AppendCountRequest), and the count is carried back; the same
// protocol on both sides passes through (with a model rule applied). An
// upstream that cannot count (openai-chat) gets no request: the client is
// told so in its format, and no count is ever estimated.
func serveCount(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt Route, x *observe.Exchange, host Host) {
	client, upstream := rt.Protocol, host.UpstreamProtocol()
	if r.Method != http.MethodPost {
		host.Fail(w, x, client, codec.NewError(mapping.ErrMethodNotAllowed, "method "+r.Method+" is not allowed; use POST"))
		return
	}
	if !codec.HasTokenCount(upstream) {
		host.Fail(w, x, client, notSupported("token counting", upstream))
		return
	}
	bodyBuf, cerr := host.ReadBody(r)
	defer pool.Put(bodyBuf)
	if cerr != nil {
		host.Fail(w, x, client, cerr)
		return
	}
	body := *bodyBuf
	outBuf := pool.Get(pool.EncodedSize(len(body)))
	defer pool.Put(outBuf)

	var model, upModel string
	var out []byte
	if client == upstream {
		if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
			host.Fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body is not a valid JSON object"))
			return
		}
		inPath := client.Descriptor().Counting.ModelInPath
		if inPath {
			model = rt.Model
		} else {
			model = gjson.GetBytes(body, "model").String()
		}
		model = strings.TrimPrefix(model, "models/")
		var routed bool
		upModel, routed = host.RouteModel(client, model)
		out = body
		if routed && !inPath {
			var err error
			if out, err = sjson.SetBytes(body, "model", upModel); err != nil {
				host.Fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
				return
			}
		}
	} else {
		req := new(codec.Request)
		if err := codec.DecodeCountRequest(client, body, req); err != nil {
			host.Fail(w, x, client, codec.AsError(err))
			return
		}
		if rt.Model != "" {
			req.Model = rt.Model
		}
		model = strings.TrimPrefix(req.Model, "models/")
		upModel, _ = host.RouteModel(client, model)
		var err error
		out, err = codec.AppendCountRequest(*outBuf, upstream, req, host.EncodeOptions(strings.TrimPrefix(upModel, "models/")))
		*outBuf = out
		if err != nil {
			host.Fail(w, x, client, codec.AsError(err))
			return
		}
		host.ReportDropped(w, req.Dropped)
	}
	upModel = strings.TrimPrefix(upModel, "models/")
	x.SetModels(model, upModel)
	if upModel == "" && !upstream.Descriptor().Counting.ModelOptional {
		host.Fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model is required"})
		return
	}
	path, cerr := host.CountPath(upModel)
	if cerr != nil {
		host.Fail(w, x, client, cerr)
		return
	}
	if cerr := host.Prepare(r, x, client, out, path, ""); cerr != nil {
		host.Fail(w, x, client, cerr)
		return
	}
	host.Forward(w, r, next, x, client, func(body, out []byte) ([]byte, error) {
		if client == upstream {
			return append(out, body...), nil
		}
		n, err := codec.DecodeCountResponse(upstream, body)
		if err != nil {
			return out, err
		}
		return codec.AppendCountResponse(out, client, n), nil
	})
}
