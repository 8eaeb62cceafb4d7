package caddymodule

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// endpointKind names an endpoint other than generation.
type endpointKind int

const (
	// endpointModels is a model listing: GET …/v1/models (OpenAI and
	// Anthropic) or GET …/v1beta/models (Gemini).
	endpointModels endpointKind = iota + 1
	// endpointCount is token counting: Anthropic's
	// POST …/v1/messages/count_tokens, Vertex's
	// …/publishers/anthropic/models/count-tokens:rawPredict, Gemini's and
	// Vertex's …/models/{model}:countTokens and Responses'
	// POST …/v1/responses/input_tokens.
	endpointCount
)

// endpoint is what the request path says about a listing or counting
// request.
type endpoint struct {
	kind endpointKind
	// protocol is the client's protocol; for listings it selects the shape
	// (openai-chat stands for OpenAI's).
	protocol codec.Protocol
	// model is the model named in the path (Gemini and Vertex counting).
	model string
}

// detectEndpoint recognises the listing and counting endpoints. configured
// is the client directive's protocol, or "".
//
// GET …/v1/models is shared by OpenAI and Anthropic (and the Gemini API's
// v1): it is answered in Anthropic's shape when the request carries an
// anthropic-version or x-api-key header, in the Gemini API's when it
// carries x-goog-api-key or ?key=, and in OpenAI's otherwise. With the
// client directive set, the configured protocol decides, and endpoints of
// other protocols are not recognised.
func detectEndpoint(configured codec.Protocol, r *http.Request) (endpoint, bool) {
	if p, model, ok := codec.MatchCount(r.URL.Path); ok {
		if configured != "" && p != configured {
			return endpoint{}, false
		}
		return endpoint{kind: endpointCount, protocol: p, model: model}, true
	}
	p, ok := listingOf(configured, r)
	if !ok {
		return endpoint{}, false
	}
	return endpoint{kind: endpointModels, protocol: p}, true
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
	if p, ok := hintedProtocol(r); ok && codec.HasModelList(p) {
		return p, true
	}
	return first, true
}

// notSupported is the answer to an endpoint the upstream protocol has no
// counterpart of. It is a 400, not a 5xx: SDKs retry server errors, and
// retrying cannot help.
func notSupported(what string, upstream codec.Protocol) *codec.Error {
	return codec.NewError(mapping.ErrInvalidRequest, what+" is not supported by this gateway: its upstream protocol "+string(upstream)+" has no "+what+" endpoint")
}

// serveEndpoint answers a listing or counting request.
func (h *Handler) serveEndpoint(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, ep endpoint, x *observe.Exchange) error {
	if ep.kind == endpointModels {
		return h.serveModels(w, r, next, ep, x)
	}
	return h.serveCount(w, r, next, ep, x)
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
func (h *Handler) serveModels(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, ep endpoint, x *observe.Exchange) error {
	client := ep.protocol
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		fail(w, x, client, codec.NewError(mapping.ErrMethodNotAllowed, "method "+r.Method+" is not allowed; use GET"))
		return nil
	}
	if !codec.HasModelList(h.upstream) {
		fail(w, x, client, notSupported("model listing", h.upstream))
		return nil
	}
	same := codec.SameModelListShape(client, h.upstream)
	in, query := r.URL.Query(), url.Values{}
	listing := h.upstream.Descriptor().Listing
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
	path := listing.Path
	r.Body = http.NoBody
	r.GetBody = nil
	r.ContentLength = 0
	r.Header.Del("Content-Length")
	if cerr := h.rewriteHeaders(r, client, h.upstream, false, h.credentialOf(x)); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	r.Header.Del("Content-Type")
	setPath(r, path, query.Encode())

	cw := &collectingWriter{ResponseWriter: w, x: x}
	nextErr := next.ServeHTTP(cw, r)
	h.answerCollected(w, cw, nextErr, client, x, func(body, out []byte) ([]byte, error) {
		if same {
			return append(out, body...), nil
		}
		l, err := codec.DecodeModelList(h.upstream, body)
		if err != nil {
			return out, err
		}
		return codec.AppendModelList(out, client, l, codec.ModelListOptions{Methods: h.geminiMethods()}), nil
	})
	return nil
}

// geminiMethods are the supportedGenerationMethods of a model listed to a
// Gemini client from another upstream: what llmbridge serves toward it.
func (h *Handler) geminiMethods() []string {
	if codec.HasTokenCount(h.upstream) {
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
func (h *Handler) serveCount(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, ep endpoint, x *observe.Exchange) error {
	client := ep.protocol
	if r.Method != http.MethodPost {
		fail(w, x, client, codec.NewError(mapping.ErrMethodNotAllowed, "method "+r.Method+" is not allowed; use POST"))
		return nil
	}
	if !codec.HasTokenCount(h.upstream) {
		fail(w, x, client, notSupported("token counting", h.upstream))
		return nil
	}
	bodyBuf := pool.Get(requestBufferSize(r))
	defer pool.Put(bodyBuf)
	body, cerr := readBody(r, h.MaxRequestBody, *bodyBuf)
	*bodyBuf = body
	if cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	outBuf := pool.Get(pool.EncodedSize(len(body)))
	defer pool.Put(outBuf)

	var model, upModel string
	var out []byte
	if client == h.upstream {
		if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
			fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body is not a valid JSON object"))
			return nil
		}
		inPath := client.Descriptor().Counting.ModelInPath
		if inPath {
			model = ep.model
		} else {
			model = gjson.GetBytes(body, "model").String()
		}
		model = strings.TrimPrefix(model, "models/")
		var routed bool
		upModel, routed = h.routeModel(client, model)
		out = body
		if routed && !inPath {
			var err error
			if out, err = sjson.SetBytes(body, "model", upModel); err != nil {
				fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
				return nil
			}
		}
	} else {
		req := new(codec.Request)
		if err := codec.DecodeCountRequest(client, body, req); err != nil {
			fail(w, x, client, codec.AsError(err))
			return nil
		}
		if ep.model != "" {
			req.Model = ep.model
		}
		model = strings.TrimPrefix(req.Model, "models/")
		upModel, _ = h.routeModel(client, model)
		var err error
		out, err = codec.AppendCountRequest(*outBuf, h.upstream, req, codec.EncodeOptions{Model: strings.TrimPrefix(upModel, "models/"), DefaultMaxTokens: h.DefaultMaxTokens})
		*outBuf = out
		if err != nil {
			fail(w, x, client, codec.AsError(err))
			return nil
		}
		if len(req.Dropped) > 0 {
			h.metrics.RecordDropped(req.Dropped)
			w.Header().Set("Llmbridge-Dropped", observe.HeaderList(req.Dropped))
			h.logger.Debug("dropped hint fields", zap.Strings("fields", req.Dropped))
		}
	}
	upModel = strings.TrimPrefix(upModel, "models/")
	x.SetModels(model, upModel)
	counting := h.upstream.Descriptor().Counting
	if upModel == "" && !counting.ModelOptional {
		fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model is required"})
		return nil
	}
	if counting.ModelInPath {
		if err := checkPathModel(upModel, h.upstream); err != nil {
			fail(w, x, client, err)
			return nil
		}
	}
	setBody(r, out)
	if cerr := h.rewriteHeaders(r, client, h.upstream, false, h.credentialOf(x)); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	setPath(r, h.countPath(upModel), "")

	cw := &collectingWriter{ResponseWriter: w, x: x}
	nextErr := next.ServeHTTP(cw, r)
	h.answerCollected(w, cw, nextErr, client, x, func(body, out []byte) ([]byte, error) {
		if client == h.upstream {
			return append(out, body...), nil
		}
		n, err := codec.DecodeCountResponse(h.upstream, body)
		if err != nil {
			return out, err
		}
		return codec.AppendCountResponse(out, client, n), nil
	})
	return nil
}

// countPath returns the upstream's token counting path for model.
func (h *Handler) countPath(model string) string {
	return h.upstream.Descriptor().CountPath(h.location, model)
}

// collectingWriter collects the upstream's response to a listing or
// counting request, which is small and never streamed, for
// answerCollected to translate. Like translatingWriter it has no Unwrap
// method, so nothing reaches the client before the translation.
type collectingWriter struct {
	http.ResponseWriter
	x        *observe.Exchange
	status   int
	body     *[]byte
	overflow bool
}

// WriteHeader records the upstream status.
func (cw *collectingWriter) WriteHeader(status int) {
	if status < 200 || cw.status != 0 {
		return
	}
	cw.status = status
	cw.x.ResponseStarted()
}

// Write buffers the body up to maxResponseBody.
func (cw *collectingWriter) Write(p []byte) (int, error) {
	if cw.status == 0 {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.body == nil {
		cw.body = pool.Get(pool.ResponseSize(cw.Header()))
	}
	if len(*cw.body)+len(p) > maxResponseBody {
		cw.overflow = true
		return 0, errors.New("llmbridge: upstream response too large to translate")
	}
	*cw.body = append(*cw.body, p...)
	return len(p), nil
}

// FlushError does nothing: the answer is written once complete.
func (cw *collectingWriter) FlushError() error { return nil }

// ReadFrom copies through Write.
func (cw *collectingWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{cw}, r)
}

// answerCollected answers the client once the upstream's response is
// collected: a success body through translate, an upstream error in the
// client's error format with its status, and a missing, broken or
// malformed answer as a 502.
func (h *Handler) answerCollected(w http.ResponseWriter, cw *collectingWriter, nextErr error, client codec.Protocol, x *observe.Exchange, translate func(body, out []byte) ([]byte, error)) {
	defer pool.Put(cw.body)
	if cw.status == 0 {
		if nextErr == nil {
			nextErr = errors.New("upstream handler wrote no response")
		}
		h.writeUpstreamFailure(w, client, nextErr, x)
		return
	}
	var body []byte
	if cw.body != nil {
		body = *cw.body
	}
	fail := func(e *codec.Error) {
		h.logger.Warn("untranslatable upstream response", zap.Int("upstream_status", cw.status), zap.String("error", e.Message))
		x.Status = writeError(w, client, e)
		x.ErrReason = "untranslatable_response"
	}
	hdr := w.Header()
	switch {
	case cw.overflow:
		fail(codec.NewError(mapping.ErrBadGateway, "upstream response exceeds "+strconv.Itoa(maxResponseBody)+" bytes"))
	case nextErr != nil:
		h.logger.Warn("upstream response incomplete", zap.Error(nextErr))
		fail(codec.NewError(mapping.ErrBadGateway, "upstream response was interrupted"))
	case hasEncoding(hdr):
		fail(codec.NewError(mapping.ErrBadGateway, "upstream response has an unsupported Content-Encoding "+strconv.Quote(hdr.Get("Content-Encoding"))))
	case cw.status >= 400:
		x.Status = writeError(w, client, decodeUpstreamError(h.upstream, cw.status, hdr, body))
	case cw.status >= 200 && cw.status < 300:
		if !isJSON(hdr.Get("Content-Type")) {
			fail(codec.NewError(mapping.ErrBadGateway, "upstream answered Content-Type "+strconv.Quote(hdr.Get("Content-Type"))+" where JSON was expected"))
			return
		}
		out := pool.Get(pool.EncodedSize(len(body)))
		defer pool.Put(out)
		b, err := translate(body, *out)
		*out = b
		if err != nil {
			fail(codec.AsError(err))
			return
		}
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(cw.status)
		_, _ = w.Write(b)
		x.Wrote(cw.status)
	default:
		fail(codec.NewError(mapping.ErrBadGateway, "upstream answered unexpected HTTP status "+strconv.Itoa(cw.status)))
	}
}

// Interface guards
var (
	_ http.ResponseWriter = (*collectingWriter)(nil)
	_ io.ReaderFrom       = (*collectingWriter)(nil)
)
