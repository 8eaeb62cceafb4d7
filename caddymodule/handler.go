package caddymodule

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/conversations"
	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/endpoints"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// ServeHTTP translates a generation request into the upstream protocol,
// calls next (reverse_proxy) and translates its response back.
//
// Every rejection (unknown path, wrong method, oversized or malformed body,
// untranslatable field) is answered here, in the client's protocol, before
// any upstream call.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	// State a protocol keeps on the server (conversations, sockets) is
	// kept around serve, in conversations.go and websocket.go.
	if client, ok := h.opensSocket(w, r); ok {
		return h.serveSocket(w, r, next, client)
	}
	if h.keepsConversations(w, r) {
		return h.serveConversation(w, r, next)
	}
	return h.serve(w, r, next)
}

// serve is ServeHTTP without the protocols' server-side state.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if h.failover != nil {
		return h.serveFailover(w, r)
	}
	if r.Method == http.MethodOptions {
		// CORS preflights carry no body or credential; whatever handles
		// them after llmbridge (a header directive, the upstream) decides.
		return next.ServeHTTP(w, r)
	}
	// Listing and counting endpoints first: Vertex's
	// count-tokens:rawPredict would otherwise look like a generation path.
	ep, isEndpoint := endpoints.Detect(h.client, r)
	var rt route
	ok := false
	if !isEndpoint {
		rt, ok = detectRoute(r.URL.Path)
	}
	x := &observe.Exchange{Client: rt.protocol, Upstream: h.upstreamFor(rt.protocol), Start: time.Now()}
	h.tracing.Begin(r, x)
	switch {
	case isEndpoint:
		x.Client, x.Endpoint = ep.Protocol, true
	case !ok || (h.client != "" && rt.protocol != h.client):
		x.Client = guessProtocol(h.client, r)
	}
	defer h.record(r, x)
	if h.signedHost != "" {
		// SigV4 signs the upstream's host into the request; Caddy then
		// picks the access logger by the request's host, after this
		// handler returns, so the client's host is put back.
		defer func(host string) { r.Host = host }(r.Host)
	}
	if fw := failover.Of(w); fw != nil {
		// Before record: the exchange says which target it is.
		defer fw.NoteExchange(x)
	}
	if h.clientKeys != nil {
		// Before anything else, so that a client without a key learns
		// nothing about the site.
		p := x.Client
		key := h.authorized(p, r)
		if key < 0 {
			h.logger.Debug("request without a valid client key", zap.String("client_protocol", string(p)), zap.String("remote_addr", r.RemoteAddr))
			fail(w, x, p, &codec.Error{Status: http.StatusUnauthorized, Kind: mapping.ErrAuthentication, Message: "invalid or missing API key"})
			return nil
		}
		x.KeyName = h.clientKeyNames[key]
	}
	if h.keys != nil {
		i, soonest := h.keys.Pick(x.Start.UnixNano())
		if i < 0 {
			h.noKey(w, x, soonest)
			return nil
		}
		x.Key = uint16(i + 1)
	}
	if isEndpoint {
		endpoints.Serve(w, r, next, ep, x, (*endpointHost)(h))
		return nil
	}
	if !ok {
		if served, err := h.serveStoredInteraction(w, r, next, x); served {
			return err
		}
	}
	if !ok || (h.client != "" && rt.protocol != h.client) {
		fail(w, x, x.Client, codec.NewError(mapping.ErrNotFound, "no "+protocolNoun(h.client)+"generation endpoint at "+r.URL.Path))
		return nil
	}
	client := rt.protocol
	if r.Method != http.MethodPost {
		fail(w, x, client, codec.NewError(mapping.ErrMethodNotAllowed, "method "+r.Method+" is not allowed; use POST"))
		return nil
	}

	// The client's body is held until ServeHTTP returns, or until a
	// translated stream opens (writers.Translating.WriteHeader).
	held := writers.Held{Buf: pool.Get(requestBufferSize(r))}
	defer held.Release()
	body, cerr := readBody(r, h.MaxRequestBody, *held.Buf)
	*held.Buf = body
	if cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	// The drop setting edits the body for every pair.
	if body, x.Dropped, cerr = h.fitter.ApplyDrops(body); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}

	// A Chat client of a Chat server with a dialect is translated, so that
	// the dialect's departures from OpenAI apply to its body too.
	if client.Family() == x.Upstream.Family() && !(h.fitter.Dialect() != nil && client == codec.OpenAIChat) {
		return h.passthrough(w, r, next, rt, body, &held, x)
	}
	if isInteractionsClient(client, x.Upstream) {
		return h.translateInteraction(w, r, next, rt, body, &held, x)
	}
	return h.translate(w, r, next, rt, body, &held, x)
}

// upstreamFor returns the upstream protocol a client of protocol client is
// sent in: the configured upstream, or one of its alternates of the
// client's own wire family (Azure OpenAI's Responses API for a Responses
// client of an azure-openai upstream), so that the request passes through
// rather than being translated.
func (h *Handler) upstreamFor(client codec.Protocol) codec.Protocol {
	if client.Family() == h.upstream.Family() {
		return h.upstream
	}
	for _, a := range h.upstream.Descriptor().Alternates {
		if a.Family() == client.Family() {
			return a
		}
	}
	return h.upstream
}

// protocolNoun names a configured client protocol in messages.
func protocolNoun(p codec.Protocol) string {
	if p == "" {
		return "LLM "
	}
	return string(p) + " "
}

// maxUpfrontBody bounds the buffer allocated from a request's declared
// Content-Length before its bytes arrive.
const maxUpfrontBody = 1 << 20

// readBody reads the request body into buf, up to limit bytes.
func readBody(r *http.Request, limit int64, buf []byte) ([]byte, *codec.Error) {
	tooLarge := func() *codec.Error {
		return codec.NewError(mapping.ErrRequestTooLarge, "request body exceeds the limit of "+strconv.FormatInt(limit, 10)+" bytes")
	}
	if r.ContentLength > limit {
		return buf, tooLarge()
	}
	if r.Body == nil {
		return buf, codec.NewError(mapping.ErrInvalidRequest, "request body is empty")
	}
	// Size the buffer from Content-Length, but only up to a modest amount:
	// a client that claims a large body and sends nothing must not make
	// llmbridge allocate it.
	if want := min(r.ContentLength, maxUpfrontBody); want > 0 && int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	// Reading one byte past the limit tells an oversized body from one that
	// is exactly at the limit, whatever Content-Length claimed.
	lr := io.LimitReader(r.Body, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, tooLarge()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*http.MaxBytesError); ok {
				return buf, tooLarge()
			}
			return buf, codec.NewError(mapping.ErrInvalidRequest, "reading the request body failed")
		}
	}
	if len(bytes.TrimSpace(buf)) == 0 {
		return buf, codec.NewError(mapping.ErrInvalidRequest, "request body is empty")
	}
	return buf, nil
}

// setBody replaces the request body with b, which must stay unmodified
// until next returns or, for a body in a pooled buffer, until the body
// releases the buffer (writers.Sent).
func setBody(r *http.Request, b []byte) *writers.Sent {
	sb := writers.NewSent(b)
	r.Body = sb
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	r.ContentLength = int64(len(b))
	r.Header.Set("Content-Length", strconv.Itoa(len(b)))
	r.TransferEncoding = nil
	return sb
}

// setPath points the request at the upstream endpoint. path is escaped
// (codec.Descriptor.UpstreamPath): a Bedrock model id's ':' is sent as
// %3A, as the AWS SDKs send it and SigV4 signs it.
func setPath(r *http.Request, path, rawQuery string) {
	r.URL.Path, r.URL.RawPath = path, ""
	if strings.IndexByte(path, '%') >= 0 {
		if p, err := url.PathUnescape(path); err == nil {
			r.URL.Path, r.URL.RawPath = p, path
		}
	}
	r.URL.RawQuery = rawQuery
	r.RequestURI = r.URL.RequestURI()
}

// checkPathModel rejects a model name that cannot be placed in the URL path
// of an upstream of protocol upstream. Request content must never choose
// another upstream endpoint: a path that takes the model as it is takes no
// separator, escape or dot segment; one that escapes it
// (codec.Descriptor.ModelEscaped, Bedrock's ARNs) only no dot segment.
func checkPathModel(model string, upstream codec.Protocol) *codec.Error {
	if model == "" {
		return &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model is required"}
	}
	bad := strings.IndexFunc(model, func(c rune) bool { return c < 0x21 || c == 0x7f }) >= 0
	if d := upstream.Descriptor(); d != nil && d.ModelEscaped {
		bad = bad || model == "." || model == ".."
	} else {
		bad = bad || strings.ContainsAny(model, "/?#%\\") || strings.HasPrefix(model, ".")
	}
	if bad {
		return &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model name " + strconv.Quote(model) + " cannot be used in an upstream path"}
	}
	return nil
}

// translate handles a request whose client and upstream protocols differ.
// held is the pooled buffer holding body, which an open stream gives back
// early.
func (h *Handler) translate(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt route, body []byte, held *writers.Held, x *observe.Exchange) error {
	client := rt.protocol
	req := getRequest()
	defer putRequest(req)
	if h.items != nil {
		// Only the Responses codec uses it: its clients refer to
		// items of earlier answers, which its encoders keep.
		req.Items = h.items
	}
	turn := conversations.TurnOf(w)
	req.Conversations = turn != nil
	if err := h.fitter.DecodeRequest(client, body, req, x.Dropped); err != nil {
		failPolicy(w, x, client, err)
		return nil
	}
	if turn != nil {
		// A kept conversation: the request is continued, and decoded
		// again, only when it names the one it continues.
		if req.Continues != "" {
			continued, cerr := turn.Continue(r.Context(), req.Continues, body)
			if cerr != nil {
				fail(w, x, client, cerr)
				return nil
			}
			body = continued
			req.Reset()
			if err := h.fitter.DecodeRequest(client, body, req, x.Dropped); err != nil {
				failPolicy(w, x, client, err)
				return nil
			}
		}
		turn.SetStore(!req.Store.Set || req.Store.Value)
	}
	decoded := len(req.Dropped)
	if client.ModelInPath() {
		req.Model = strings.TrimPrefix(rt.model, "models/")
		req.Stream = rt.stream
	} else if req.Model == "" {
		// An Azure OpenAI deployment path names the model the body
		// may leave out.
		req.Model = rt.model
	}
	x.Stream = req.Stream
	x.Tel.NoteRequest(req)
	model, routed := h.routeModel(client, req.Model)
	x.SetModels(req.Model, model)
	if x.Upstream.ModelInPath() {
		model = strings.TrimPrefix(model, "models/")
		x.SetModels(req.Model, model)
		if err := checkPathModel(model, x.Upstream); err != nil {
			fail(w, x, client, err)
			return nil
		}
	} else if model == "" {
		fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model is required"})
		return nil
	}

	if h.limits != nil && !h.limits.Admit(w, r, x, h.limitEstimate(req, x)) {
		return nil
	}

	target, adjusted, cerr := h.fitter.Fit(req, x.Upstream, model)
	if cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}

	// The encoded body's buffer, which the body sent takes over below.
	outBuf := writers.Held{Buf: pool.Get(pool.EncodedSize(len(body)))}
	defer outBuf.Release()
	out, err := h.fitter.EncodeRequest(*outBuf.Buf, x.Upstream, req, codec.EncodeOptions{Model: model, DefaultMaxTokens: h.DefaultMaxTokens, Target: target, Cache: h.cachePolicyFor(client)}, decoded)
	*outBuf.Buf = out
	if err != nil {
		failPolicy(w, x, client, err)
		return nil
	}
	out, berr := bodyOnlyBetas(r, out, x.Upstream)
	*outBuf.Buf = out
	if berr != nil {
		fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+berr.Error()))
		return nil
	}
	req.Dropped = append(req.Dropped, h.filterBetas(r, x.Upstream)...)
	h.fitter.ReportDropped(w, req.Dropped)
	h.fitter.ReportAdjusted(w, model, adjusted)
	x.Tel.NoteEdits(adjusted, req.Dropped)
	sent := setBody(r, out)
	sent.Held, outBuf.Buf = outBuf, nil
	defer sent.Release()
	// Headers first: a Gemini client's ?key= credential is read from the
	// query that setPath replaces.
	if cerr := h.rewriteHeaders(r, client, x.Upstream, req.Stream, h.credentialOf(x)); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	path, query := h.upstreamPath(x.Upstream, model, req.Stream)
	setPath(r, path, query)
	if cerr := h.signUpstream(r, x, out); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}

	upReq, cutoff := streams.WithCutoff(r, req.Stream)
	defer cutoff.Release()
	// The writer takes the client's body over from ServeHTTP. The first
	// writer carries the teaching a retry needs, in its own allocation; it
	// lets go of the teaching's header copy once a stream begins.
	first := &firstTranslating{Translating: writers.Translating{ResponseWriter: w, Site: &h.writers, Client: client, Req: req,
		Exchange: x, Cutoff: cutoff, Sent: sent, ClientBody: *held}}
	tw := &first.Translating
	held.Buf = nil
	defer tw.ClientBody.Release()
	if routed && !h.upstreamModelInResponse {
		// The exchange's copy: req.Model points into the body, which an
		// open stream gives back.
		tw.Model = x.Model
	}
	defer func() {
		// reverse_proxy panics with http.ErrAbortHandler when the upstream
		// body breaks off after the headers, or when the stream writer
		// stopped reading it (streams.Cutoff). While the client is still
		// there, end its response properly (an error in its protocol)
		// instead of cutting the connection.
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler || r.Context().Err() != nil {
				panic(v)
			}
			tw.Finish(errUpstreamAborted)
		}
	}()
	first.teach = h.startTeaching(w, model, target, adjusted, out, decoded)
	teach := &first.teach
	tw.OnStream = teach
	defer teach.release()
	nextErr := h.callUpstream(x, next, tw, upReq)
	if retry := h.learnRetry(upReq, tw, nextErr, teach); retry != nil {
		// The refusal taught a fix: send the request once more (learn.go).
		tw = retry
		nextErr = h.callUpstream(x, next, tw, upReq)
		h.learnedOutcome(tw.Status(), teach)
	}
	return tw.Finish(nextErr)
}

// firstTranslating is the first writer of a translated request with the
// teaching its retry needs, in one allocation.
type firstTranslating struct {
	writers.Translating
	teach teaching
}

// errUpstreamAborted stands for the error reverse_proxy logged before it
// aborted the response.
var errUpstreamAborted = errors.New("upstream response aborted")
