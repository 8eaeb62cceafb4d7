package caddymodule

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/endpoints"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// The listing and counting endpoints are served by caddymodule/endpoints;
// this file is what they need of the handler (endpointHost): its upstream
// and model routes, its body limits, the headers and credentials of the
// upstream call, and the call itself, whose answer is collected and
// checked as the handler's other writers check theirs.

// endpointHost is the handler as endpoints.Serve sees it.
type endpointHost Handler

// UpstreamProtocol is the site's upstream protocol.
func (eh *endpointHost) UpstreamProtocol() codec.Protocol { return eh.upstream }

// RouteModel applies the site's model routes (Handler.routeModel).
func (eh *endpointHost) RouteModel(client codec.Protocol, model string) (string, bool) {
	return (*Handler)(eh).routeModel(client, model)
}

// EncodeOptions gives a counted request the site's default max_tokens, as
// the generation request it counts would get.
func (eh *endpointHost) EncodeOptions(model string) codec.EncodeOptions {
	return codec.EncodeOptions{Model: model, DefaultMaxTokens: eh.DefaultMaxTokens}
}

// ReadBody reads r's body within max_request_body, as serve reads a
// generation request's.
func (eh *endpointHost) ReadBody(r *http.Request) (*[]byte, *codec.Error) {
	buf := pool.Get(requestBufferSize(r))
	body, cerr := readBody(r, eh.MaxRequestBody, *buf)
	*buf = body
	return buf, cerr
}

// CountPath is the upstream's counting path for model at the site's
// location; a model that goes into the path is checked as a generation
// request's is (checkPathModel).
func (eh *endpointHost) CountPath(model string) (string, *codec.Error) {
	d := eh.upstream.Descriptor()
	if d.Counting.ModelInPath {
		if err := checkPathModel(model, eh.upstream); err != nil {
			return "", err
		}
	}
	return d.CountPath(eh.location, model), nil
}

// Prepare sets r's body, rewrites its headers and credentials for the
// upstream (rewriteHeaders, with the key of x) and sets its path.
func (eh *endpointHost) Prepare(r *http.Request, x *observe.Exchange, client codec.Protocol, body []byte, path, rawQuery string) *codec.Error {
	h := (*Handler)(eh)
	if body != nil {
		setBody(r, body)
	}
	if cerr := h.rewriteHeaders(r, client, h.upstream, false, h.credentialOf(x)); cerr != nil {
		return cerr
	}
	setPath(r, path, rawQuery)
	return nil
}

// ReportDropped reports dropped fields as a translated generation
// request's are (fit.Fitter.ReportDropped).
func (eh *endpointHost) ReportDropped(w http.ResponseWriter, paths []string) {
	eh.fitter.ReportDropped(w, paths)
}

// Fail answers e with the handler's writer of errors (fail).
func (eh *endpointHost) Fail(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error) {
	fail(w, x, p, e)
}

// Forward calls next with r, collecting the upstream's answer, which is
// small and never streamed, and answers the client (answerCollected).
func (eh *endpointHost) Forward(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, x *observe.Exchange, client codec.Protocol, translate func(body, out []byte) ([]byte, error)) {
	cw := &collectingWriter{ResponseWriter: w, x: x}
	nextErr := next.ServeHTTP(cw, r)
	(*Handler)(eh).answerCollected(w, cw, nextErr, client, x, translate)
}

// collectingWriter collects the upstream's response to a listing or
// counting request, which is small and never streamed, for
// answerCollected to translate. Like writers.Translating it has no Unwrap
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

// Write buffers the body up to writers.MaxResponseBody.
func (cw *collectingWriter) Write(p []byte) (int, error) {
	if cw.status == 0 {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.body == nil {
		cw.body = pool.Get(pool.ResponseSize(cw.Header()))
	}
	if len(*cw.body)+len(p) > writers.MaxResponseBody {
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
	return io.Copy(struct{ io.Writer }{cw}, r)
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
		h.writers.UpstreamFailed(w, client, nextErr, x)
		return
	}
	var body []byte
	if cw.body != nil {
		body = *cw.body
	}
	fail := func(e *codec.Error) {
		h.logger.Warn("untranslatable upstream response", zap.Int("upstream_status", cw.status), zap.String("error", e.Message))
		x.Status = writers.WriteError(w, client, e)
		x.ErrReason = "untranslatable_response"
	}
	hdr := w.Header()
	switch {
	case cw.overflow:
		fail(codec.NewError(mapping.ErrBadGateway, "upstream response exceeds "+strconv.Itoa(writers.MaxResponseBody)+" bytes"))
	case nextErr != nil:
		h.logger.Warn("upstream response incomplete", zap.Error(nextErr))
		fail(codec.NewError(mapping.ErrBadGateway, "upstream response was interrupted"))
	case writers.HasEncoding(hdr):
		fail(codec.NewError(mapping.ErrBadGateway, "upstream response has an unsupported Content-Encoding "+strconv.Quote(hdr.Get("Content-Encoding"))))
	case cw.status >= 400:
		x.Status = writers.WriteError(w, client, writers.DecodeUpstreamError(h.upstream, cw.status, hdr, body))
	case cw.status >= 200 && cw.status < 300:
		if !writers.IsJSON(hdr.Get("Content-Type")) {
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
	_ endpoints.Host      = (*endpointHost)(nil)
	_ http.ResponseWriter = (*collectingWriter)(nil)
	_ io.ReaderFrom       = (*collectingWriter)(nil)
)
