package caddymodule

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// translatingWriter collects the upstream's non-streamed response and, once
// the next handler returns, writes its translation in the client protocol.
//
// It deliberately has no Unwrap method: http.ResponseController must not
// reach past it and flush the client connection before the translated
// header is written (caddy#6144: an upstream 429 reached clients as 200).
type translatingWriter struct {
	http.ResponseWriter
	h      *Handler
	client codec.Protocol
	req    *codec.Request
	x      *observe.Exchange
	// model, when set, replaces the model the upstream names in its
	// response: the model the client asked for, after a model rule
	// rewrote it.
	model string

	status   int
	body     *[]byte
	overflow bool
	stream   *streams.Translator // set when the upstream answered a stream
	cutoff   *streams.Cutoff     // ends the upstream's stream after the client's
	// sent is the request body sent upstream, whose buffer a stream
	// gives back once the upstream has read it (nil: not to release).
	sent *sentBody
	// clientBody holds the client's request body, which the request's
	// strings point into; a stream gives it back once it has kept what
	// it reads of the request.
	clientBody heldBuffer
	// teach is the first writer's teaching (learn.go): nothing retries
	// a stream once it has begun, so its header copy goes back then.
	teach teaching
}

// WriteHeader records the upstream status; informational statuses pass
// through at once.
func (tw *translatingWriter) WriteHeader(status int) {
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
	tw.x.ResponseStarted()
	tw.h.noteUpstream(tw.ResponseWriter, tw.x, status, tw.Header())
	if status >= 200 && status < 300 && tw.req.Stream && streams.IsStreamOf(tw.x.Upstream, tw.Header().Get("Content-Type")) && !hasEncoding(tw.Header()) {
		st, err := streams.NewTranslator(tw.ResponseWriter, &tw.h.streams, tw.client, tw.x.Upstream, tw.req)
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
		if tw.sent.readToEnd() {
			tw.sent.release()
		}
		recycleScratch(tw.req.KeepForStream())
		tw.clientBody.release()
		tw.teach.release()
		tw.stream.Model = tw.model
		tw.stream.Exchange = tw.x
		tw.stream.Cutoff = tw.cutoff
		if fw := failover.Of(tw.ResponseWriter); fw != nil {
			fw.HoldStream()
		}
		streams.StartHeaders(tw.ResponseWriter, tw.client, status)
		tw.x.Status = status
		// The client sees the stream open before the first event.
		_ = tw.stream.Flush()
	}
}

// Write translates a stream event by event, or buffers a JSON body up to
// maxResponseBody.
func (tw *translatingWriter) Write(p []byte) (int, error) {
	if tw.status == 0 {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.stream != nil {
		return tw.stream.Write(p)
	}
	if tw.body == nil {
		tw.body = pool.Get(pool.ResponseSize(tw.Header()))
	}
	if len(*tw.body)+len(p) > maxResponseBody {
		tw.overflow = true
		return 0, errors.New("llmbridge: upstream response too large to translate")
	}
	*tw.body = append(*tw.body, p...)
	return len(p), nil
}

// FlushError does nothing: a stream translation flushes after every event
// it writes, and a JSON translation is written when the upstream response
// is complete.
func (tw *translatingWriter) FlushError() error { return nil }

// ReadFrom copies through Write, so that nothing bypasses the translation.
func (tw *translatingWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{tw}, r)
}

// writerOnly hides every method but Write, so io.Copy cannot recurse into
// ReadFrom.
type writerOnly struct{ io.Writer }

// finish writes the translated response once next has returned nextErr.
func (tw *translatingWriter) finish(nextErr error) error {
	if tw.stream != nil {
		tw.stream.Finish(nextErr)
		return nil
	}
	defer pool.Put(tw.body)
	if tw.status == 0 {
		if nextErr == nil {
			nextErr = errors.New("upstream handler wrote no response")
		}
		tw.h.writeUpstreamFailure(tw.ResponseWriter, tw.client, nextErr, tw.x)
		return nil
	}
	var body []byte
	if tw.body != nil {
		body = *tw.body
	}
	upstream := tw.x.Upstream
	hdr := tw.Header()
	switch {
	case tw.overflow:
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response exceeds "+strconv.Itoa(maxResponseBody)+" bytes"))
	case nextErr != nil:
		// The upstream answered but the body broke off (reset, timeout).
		tw.h.logger.Warn("upstream response incomplete", zap.Error(nextErr))
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response was interrupted"))
	case hasEncoding(hdr):
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response has an unsupported Content-Encoding "+strconv.Quote(hdr.Get("Content-Encoding"))))
	case tw.status >= 400:
		tw.writeError(decodeUpstreamError(upstream, tw.status, hdr, body))
	case tw.status >= 200 && tw.status < 300:
		if !isJSON(hdr.Get("Content-Type")) {
			tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream answered Content-Type "+strconv.Quote(hdr.Get("Content-Type"))+" where JSON was expected"))
			break
		}
		var resp codec.Response
		if err := codec.DecodeResponse(upstream, body, &resp); err != nil {
			tw.fail(codec.AsError(err))
			break
		}
		tw.x.ObserveResponse(&resp)
		resp.Latency = tw.x.Latency()
		if tw.client.Descriptor().MetricsHeaders && !tw.req.Stream {
			setMetricsHeaders(hdr, &resp.Usage, &resp.Latency)
		}
		if tw.model != "" {
			resp.Model = tw.model
		} else if resp.Model == "" {
			// An upstream that names no model (Bedrock's Converse)
			// answered for the model it was sent.
			resp.Model = tw.x.UpstreamModel
		}
		if tw.req.Stream {
			// The stream's events count the carried state.
			tw.reportDroppedOutput(resp.Dropped)
			tw.streamResponse(&resp)
			break
		}
		out := pool.Get(pool.EncodedSize(len(body)))
		defer pool.Put(out)
		// The client's request says which calls were of custom or
		// namespaced tools, which a Responses client gets back as such.
		b, err := codec.AppendResponseFor(*out, tw.client, &resp, tw.req)
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

// droppedOutputHeader lists the upstream output a translated response left
// out because the client's protocol cannot express or carry it.
const droppedOutputHeader = "Llmbridge-Dropped-Output"

// reportOutput reports the upstream output of resp that the client's
// protocol cannot express, before the response header is written: what
// was left out (reportDroppedOutput), and the state kept whole to travel
// in a continuation in opaque_carried_total.
func (tw *translatingWriter) reportOutput(resp *codec.Response) {
	for i := range resp.Content {
		if p := &resp.Content[i]; p.Type == codec.PartReasoning && p.Redacted {
			if kind := codec.OpaqueKind(p.Signature); kind != "" {
				tw.h.metrics.RecordOpaqueCarried(kind)
			}
		}
	}
	tw.reportDroppedOutput(resp.Dropped)
}

// reportDroppedOutput reports the output a response left out (the
// entries of Response.Dropped), before the response header is written:
// the Llmbridge-Dropped-Output header, a debug log and
// dropped_output_total.
func (tw *translatingWriter) reportDroppedOutput(dropped []string) {
	if len(dropped) == 0 {
		return
	}
	tw.Header().Set(droppedOutputHeader, observe.HeaderList(dropped))
	tw.h.logger.Debug("response content the client protocol cannot carry", zap.Strings("dropped", dropped))
	for _, d := range dropped {
		tw.h.metrics.RecordDroppedOutput(observe.DroppedOutputKind(d))
	}
}

// streamResponse answers a client that asked for a stream, when the
// upstream answered one JSON body, with the stream of that body.
func (tw *translatingWriter) streamResponse(resp *codec.Response) {
	st, err := streams.NewTranslator(tw.ResponseWriter, &tw.h.streams, tw.client, tw.x.Upstream, tw.req)
	if err != nil {
		tw.fail(codec.AsError(err))
		return
	}
	tw.stream = st
	tw.stream.Model = tw.model
	tw.stream.Exchange = tw.x
	hdr := tw.Header()
	hdr.Del("Content-Length")
	if fw := failover.Of(tw.ResponseWriter); fw != nil {
		fw.HoldStream()
	}
	streams.StartHeaders(tw.ResponseWriter, tw.client, tw.status)
	tw.x.Status = tw.status
	tw.stream.Respond(resp)
}

// writeError encodes an error in the client protocol and writes it.
func (tw *translatingWriter) writeError(e *codec.Error) {
	out := pool.Get(pool.MinPooled)
	defer pool.Put(out)
	*out = codec.AppendError(*out, tw.client, e)
	tw.write(codec.ClientStatus(tw.client, e), *out)
}

// fail reports a response llmbridge could not translate.
func (tw *translatingWriter) fail(e *codec.Error) {
	tw.h.logger.Warn("untranslatable upstream response", zap.Int("upstream_status", tw.status), zap.String("error", e.Message))
	tw.writeError(e)
	tw.x.ErrReason = "untranslatable_response"
}

// write sends a translated body with headers fixed for it.
func (tw *translatingWriter) write(status int, b []byte) {
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
	tw.x.Wrote(status)
}

// endsEvent reports whether an event stream whose last bytes are tail ends
// at an event boundary (a blank line, in any of the SSE line ends).
func endsEvent(tail []byte) bool {
	s := string(tail)
	return len(s) == 0 || strings.HasSuffix(s, "\n\n") || strings.HasSuffix(s, "\r\r") || strings.HasSuffix(s, "\r\n\r\n")
}

func hasEncoding(h http.Header) bool {
	ce := h.Get("Content-Encoding")
	return ce != "" && ce != "identity"
}

func isJSON(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || len(mt) > 5 && mt[len(mt)-5:] == "+json")
}

// writeUpstreamFailure answers a request whose upstream never responded
// (connection refused, DNS failure, timeout before headers). The message
// names no address: errors must not leak the internal topology.
func (h *Handler) writeUpstreamFailure(w http.ResponseWriter, client codec.Protocol, err error, x *observe.Exchange) {
	status := http.StatusBadGateway
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode >= 400 {
		status = he.StatusCode
	}
	h.logger.Warn("upstream request failed", zap.Int("status", status), zap.Error(err))
	e := &codec.Error{Status: status, Kind: mapping.KindForStatus(status), Message: "upstream request failed: " + http.StatusText(status)}
	x.Status = writeError(w, client, e)
	x.ErrReason = "upstream_unreachable"
}

// Interface guards
var (
	_ http.ResponseWriter = (*translatingWriter)(nil)
	_ io.ReaderFrom       = (*translatingWriter)(nil)
)

// Bedrock InvokeModel's headers of an answer's usage and latency.
const (
	inputTokensHeader  = "X-Amzn-Bedrock-Input-Token-Count"
	outputTokensHeader = "X-Amzn-Bedrock-Output-Token-Count"
	latencyHeader      = "X-Amzn-Bedrock-Invocation-Latency"
)

// setMetricsHeaders sets the headers in which Bedrock's InvokeModel
// reports a non-streamed answer's usage and latency (in milliseconds),
// which its clients read beside the body; the counts are in the meaning
// of Anthropic's usage (input without cached tokens).
func setMetricsHeaders(hdr http.Header, u *codec.Usage, lat *codec.Latency) {
	hdr.Set(inputTokensHeader, strconv.FormatInt(u.AnthropicInputTokens(), 10))
	hdr.Set(outputTokensHeader, strconv.FormatInt(u.OutputTokens, 10))
	hdr.Set(latencyHeader, strconv.FormatInt(lat.InvocationMs, 10))
}
