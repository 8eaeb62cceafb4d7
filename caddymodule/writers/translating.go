package writers

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Translating collects the upstream's non-streamed response and, once
// the next handler returns, writes its translation in the client protocol.
//
// It deliberately has no Unwrap method: http.ResponseController must not
// reach past it and flush the client connection before the translated
// header is written (caddy#6144: an upstream 429 reached clients as 200).
type Translating struct {
	http.ResponseWriter
	// Site is what the site's writers share.
	Site *Site
	// Client is the client's protocol, Req its decoded request and
	// Exchange the request's record.
	Client   codec.Protocol
	Req      *codec.Request
	Exchange *observe.Exchange
	// Model, when set, replaces the model the upstream names in its
	// response: the model the client asked for, after a model rule
	// rewrote it.
	Model string
	// Cutoff ends the upstream's stream after the client's.
	Cutoff *streams.Cutoff
	// Sent is the request body sent upstream, whose buffer a stream
	// gives back once the upstream has read it (nil: not to release).
	Sent *Sent
	// ClientBody holds the client's request body, which the request's
	// strings point into; a stream gives it back once it has kept what
	// it reads of the request.
	ClientBody Held
	// OnStream is told when a stream begins: nothing retries a stream,
	// so what a retry would need goes back then (nil for none).
	OnStream StreamOpener

	status   int
	body     *[]byte
	overflow bool
	stream   *streams.Translator // set when the upstream answered a stream
}

// WriteHeader records the upstream status; informational statuses pass
// through at once.
func (tw *Translating) WriteHeader(status int) {
	if status >= 100 && status < 200 {
		if status != http.StatusSwitchingProtocols {
			tw.ResponseWriter.WriteHeader(status)
		}
		return
	}
	if tw.status != 0 {
		return
	}
	tw.status = status
	tw.Exchange.ResponseStarted()
	tw.Site.Host.NoteUpstream(tw.ResponseWriter, tw.Exchange, status, tw.Header())
	if status >= 200 && status < 300 && tw.Req.Stream && streams.IsStreamOf(tw.Exchange.Upstream, tw.Header().Get("Content-Type")) && !HasEncoding(tw.Header()) {
		st, err := streams.NewTranslator(tw.ResponseWriter, &tw.Site.Config, tw.Client, tw.Exchange.Upstream, tw.Req)
		if err != nil {
			// Both protocols are checked when the handler is provisioned;
			// should one have no stream codec, the stream is collected
			// and answered as an untranslatable response.
			return
		}
		tw.stream = st
		// An open stream would otherwise hold for as long as the answer
		// takes what it no longer needs: the body sent (once the upstream
		// has read it), the conversation and the memory it was decoded
		// into, and the client's body (a stream is not sent again; the
		// stream encoders read the request's model, settings and tool
		// names, which it keeps as copies of their own).
		if tw.Sent.ReadToEnd() {
			tw.Sent.Release()
		}
		tw.Site.Recycle(tw.Req.KeepForStream())
		tw.ClientBody.Release()
		if tw.OnStream != nil {
			tw.OnStream.StreamOpened()
		}
		tw.stream.Model = tw.Model
		tw.stream.Exchange = tw.Exchange
		tw.stream.Cutoff = tw.Cutoff
		if fw := failover.Of(tw.ResponseWriter); fw != nil {
			fw.HoldStream()
		}
		streams.StartHeaders(tw.ResponseWriter, tw.Client, status)
		tw.Exchange.Status = status
		// The client sees the stream open before the first event.
		_ = tw.stream.Flush()
	}
}

// Write translates a stream event by event, or buffers a JSON body up to
// MaxResponseBody.
func (tw *Translating) Write(p []byte) (int, error) {
	if tw.status == 0 {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.stream != nil {
		return tw.stream.Write(p)
	}
	if tw.body == nil {
		tw.body = pool.Get(pool.ResponseSize(tw.Header()))
	}
	if len(*tw.body)+len(p) > MaxResponseBody {
		tw.overflow = true
		return 0, errors.New("llmbridge: upstream response too large to translate")
	}
	*tw.body = append(*tw.body, p...)
	return len(p), nil
}

// FlushError does nothing: a stream translation flushes after every event
// it writes, and a JSON translation is written when the upstream response
// is complete.
func (tw *Translating) FlushError() error { return nil }

// ReadFrom copies through Write, so that nothing bypasses the translation.
func (tw *Translating) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{tw}, r)
}

// writerOnly hides every method but Write, so io.Copy cannot recurse into
// ReadFrom.
type writerOnly struct{ io.Writer }

// Finish writes the translated response once next has returned nextErr.
func (tw *Translating) Finish(nextErr error) error {
	if tw.stream != nil {
		tw.stream.Finish(nextErr)
		return nil
	}
	defer pool.Put(tw.body)
	if tw.status == 0 {
		if nextErr == nil {
			nextErr = errors.New("upstream handler wrote no response")
		}
		tw.Site.UpstreamFailed(tw.ResponseWriter, tw.Client, nextErr, tw.Exchange)
		return nil
	}
	var body []byte
	if tw.body != nil {
		body = *tw.body
	}
	upstream := tw.Exchange.Upstream
	hdr := tw.Header()
	switch {
	case tw.overflow:
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response exceeds "+strconv.Itoa(MaxResponseBody)+" bytes"))
	case nextErr != nil:
		// The upstream answered but the body broke off (reset, timeout).
		tw.Site.Logger.Warn("upstream response incomplete", zap.Error(nextErr))
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response was interrupted"))
	case HasEncoding(hdr):
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response has an unsupported Content-Encoding "+strconv.Quote(hdr.Get("Content-Encoding"))))
	case tw.status >= 400:
		tw.WriteError(DecodeUpstreamError(upstream, tw.status, hdr, body))
	case tw.status >= 200 && tw.status < 300:
		if !IsJSON(hdr.Get("Content-Type")) {
			tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream answered Content-Type "+strconv.Quote(hdr.Get("Content-Type"))+" where JSON was expected"))
			break
		}
		var resp codec.Response
		if err := codec.DecodeResponse(upstream, body, &resp); err != nil {
			tw.fail(codec.AsError(err))
			break
		}
		tw.Exchange.ObserveResponse(&resp)
		resp.Latency = tw.Exchange.Latency()
		if tw.Client.Descriptor().MetricsHeaders && !tw.Req.Stream {
			SetMetricsHeaders(hdr, &resp.Usage, &resp.Latency)
		}
		if tw.Model != "" {
			resp.Model = tw.Model
		} else if resp.Model == "" {
			// An upstream that names no model (Bedrock's Converse)
			// answered for the model it was sent.
			resp.Model = tw.Exchange.UpstreamModel
		}
		if tw.Req.Stream {
			// The stream's events count the carried state.
			tw.reportDroppedOutput(resp.Dropped)
			tw.streamResponse(&resp)
			break
		}
		out := pool.Get(pool.EncodedSize(len(body)))
		defer pool.Put(out)
		// The client's request says which calls were of custom or
		// namespaced tools, which a Responses client gets back as such.
		b, err := codec.AppendResponseFor(*out, tw.Client, &resp, tw.Req)
		*out = b
		if err != nil {
			tw.fail(codec.AsError(err))
			break
		}
		tw.reportOutput(&resp)
		tw.write(tw.status, b)
	default:
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream answered unexpected HTTP status "+strconv.Itoa(tw.status)))
	}
	return nil
}

// DroppedOutputHeader lists the upstream output a translated response left
// out because the client's protocol cannot express or carry it.
const DroppedOutputHeader = "Llmbridge-Dropped-Output"

// reportOutput reports the upstream output of resp that the client's
// protocol cannot express, before the response header is written: what
// was left out (reportDroppedOutput), and the state kept whole to travel
// in a continuation in opaque_carried_total.
func (tw *Translating) reportOutput(resp *codec.Response) {
	for i := range resp.Content {
		if p := &resp.Content[i]; p.Type == codec.PartReasoning && p.Redacted {
			if kind := codec.OpaqueKind(p.Signature); kind != "" {
				tw.Site.Metrics.RecordOpaqueCarried(kind)
			}
		}
	}
	tw.reportDroppedOutput(resp.Dropped)
}

// reportDroppedOutput reports the output a response left out (the
// entries of Response.Dropped), before the response header is written:
// the Llmbridge-Dropped-Output header, a debug log and
// dropped_output_total.
func (tw *Translating) reportDroppedOutput(dropped []string) {
	if len(dropped) == 0 {
		return
	}
	tw.Header().Set(DroppedOutputHeader, observe.HeaderList(dropped))
	tw.Site.Logger.Debug("response content the client protocol cannot carry", zap.Strings("dropped", dropped))
	for _, d := range dropped {
		tw.Site.Metrics.RecordDroppedOutput(observe.DroppedOutputKind(d))
	}
}

// streamResponse answers a client that asked for a stream, when the
// upstream answered one JSON body, with the stream of that body.
func (tw *Translating) streamResponse(resp *codec.Response) {
	st, err := streams.NewTranslator(tw.ResponseWriter, &tw.Site.Config, tw.Client, tw.Exchange.Upstream, tw.Req)
	if err != nil {
		tw.fail(codec.AsError(err))
		return
	}
	tw.stream = st
	tw.stream.Model = tw.Model
	tw.stream.Exchange = tw.Exchange
	hdr := tw.Header()
	hdr.Del("Content-Length")
	if fw := failover.Of(tw.ResponseWriter); fw != nil {
		fw.HoldStream()
	}
	streams.StartHeaders(tw.ResponseWriter, tw.Client, tw.status)
	tw.Exchange.Status = tw.status
	tw.stream.Respond(resp)
}

// writeError encodes an error in the client protocol and writes it.
func (tw *Translating) WriteError(e *codec.Error) {
	out := pool.Get(pool.MinPooled)
	defer pool.Put(out)
	*out = codec.AppendError(*out, tw.Client, e)
	tw.write(codec.ClientStatus(tw.Client, e), *out)
}

// fail reports a response llmbridge could not translate.
func (tw *Translating) fail(e *codec.Error) {
	tw.Site.Logger.Warn("untranslatable upstream response", zap.Int("upstream_status", tw.status), zap.String("error", e.Message))
	tw.WriteError(e)
	tw.Exchange.ErrReason = "untranslatable_response"
}

// write sends a translated body with headers fixed for it.
func (tw *Translating) write(status int, b []byte) {
	hdr := tw.Header()
	hdr.Del("Content-Encoding")
	for _, name := range errorTypeHeaders() {
		// The upstream's error type does not describe the translated
		// body; the AWS SDKs would read it before the body's.
		hdr.Del(name)
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	tw.ResponseWriter.WriteHeader(status)
	_, _ = tw.ResponseWriter.Write(b)
	tw.Exchange.Wrote(status)
}

// EndsEvent reports whether an event stream whose last bytes are tail ends
// at an event boundary (a blank line, in any of the SSE line ends).
func EndsEvent(tail []byte) bool {
	s := string(tail)
	return len(s) == 0 || strings.HasSuffix(s, "\n\n") || strings.HasSuffix(s, "\r\r") || strings.HasSuffix(s, "\r\n\r\n")
}

// HasEncoding reports whether h declares a content encoding other than
// identity: such a body can only be passed on, not read.
func HasEncoding(h http.Header) bool {
	ce := h.Get("Content-Encoding")
	return ce != "" && ce != "identity"
}

// IsJSON reports whether contentType is JSON's (or absent, as some
// upstreams send their JSON).
func IsJSON(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || len(mt) > 5 && mt[len(mt)-5:] == "+json")
}

// Interface guards
var (
	_ http.ResponseWriter = (*Translating)(nil)
	_ io.ReaderFrom       = (*Translating)(nil)
)

// Bedrock InvokeModel's headers of an answer's usage and latency.
const (
	inputTokensHeader  = "X-Amzn-Bedrock-Input-Token-Count"
	outputTokensHeader = "X-Amzn-Bedrock-Output-Token-Count"
	latencyHeader      = "X-Amzn-Bedrock-Invocation-Latency"
)

// SetMetricsHeaders sets the headers in which Bedrock's InvokeModel
// reports a non-streamed answer's usage and latency (in milliseconds),
// which its clients read beside the body; the counts are in the meaning
// of Anthropic's usage (input without cached tokens).
func SetMetricsHeaders(hdr http.Header, u *codec.Usage, lat *codec.Latency) {
	hdr.Set(inputTokensHeader, strconv.FormatInt(u.AnthropicInputTokens(), 10))
	hdr.Set(outputTokensHeader, strconv.FormatInt(u.OutputTokens, 10))
	hdr.Set(latencyHeader, strconv.FormatInt(lat.InvocationMs, 10))
}

// Status is the upstream's status, 0 before its header.
func (tw *Translating) Status() int { return tw.status }

// Held returns the non-streamed answer collected, for a retry that may
// replace it: its status, header and body (which the caller may rewrite
// in place, in the upstream's protocol); false when the upstream call
// failed (nextErr), a stream began or the answer outgrew the bound.
func (tw *Translating) Held(nextErr error) (int, http.Header, *[]byte, bool) {
	if nextErr != nil || tw.stream != nil || tw.overflow || tw.body == nil {
		return 0, nil, nil, false
	}
	return tw.status, tw.Header(), tw.body, true
}

// Retry gives the collected answer back and returns the writer of the
// request sent again: the same client, request, exchange, model and
// cutoff.
func (tw *Translating) Retry() *Translating {
	pool.Put(tw.body)
	tw.body = nil
	return &Translating{ResponseWriter: tw.ResponseWriter, Site: tw.Site, Client: tw.Client, Req: tw.Req, Exchange: tw.Exchange,
		Model: tw.Model, Cutoff: tw.Cutoff}
}
