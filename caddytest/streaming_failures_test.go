package caddytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"google.golang.org/genai"
)

// streamFailureCase is one way an upstream stream fails.
type streamFailureCase struct {
	name string
	plan streamPlan
}

// streamFailureCases are the failures tested for upstream up: its
// in-stream error after some text (for Responses both the nested shape of
// real traffic and the spec's flat one), a stream cut cleanly in the middle
// of the text, one cut cleanly right before its terminal event, a
// connection reset after some text, and an event that is not the
// protocol's after some text.
func streamFailureCases(up proto) []streamFailureCase {
	cases := []streamFailureCase{
		{streamInError.String(), streamPlan{failure: streamInError}},
	}
	if up == openaiResponses {
		cases = append(cases, streamFailureCase{streamInError.String() + "-flat", streamPlan{failure: streamInError, flatError: true}})
	}
	return append(cases,
		streamFailureCase{streamTruncatedMid.String(), streamPlan{failure: streamTruncatedMid}},
		streamFailureCase{streamTruncatedEnd.String(), streamPlan{failure: streamTruncatedEnd}},
		streamFailureCase{streamReset.String(), streamPlan{failure: streamReset}},
		streamFailureCase{streamGarbage.String(), streamPlan{failure: streamGarbage}},
	)
}

// failureReply is the answer the failing streams start to give.
func failureReply(up proto) reply {
	return reply{Text: fmt.Sprintf("Partial «%s» answer, cut short — \"ok\" ✓ then more text", up), Stop: "end", Usage: defaultUsage}
}

// isTruncation reports whether f ends the upstream body cleanly but early.
func isTruncation(f streamFailure) bool {
	return f == streamTruncatedMid || f == streamTruncatedEnd
}

// TestStreamingFailures checks, for every upstream protocol and every
// client SDK, that a stream that fails after some text (the upstream's
// in-stream error, a clean end before the terminal event, a connection
// reset, a garbage event) reaches the client as the partial text followed
// by its protocol's in-stream error: never a clean completion, a parse
// failure or a hang. Passthrough pairs (one wire family) pass the events
// before the fault on byte for byte and end the same way. Truncated
// streams on passthrough pairs are in TestPassthroughStreamTruncation.
func TestStreamingFailures(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, up := range allProtocols {
		for _, fc := range streamFailureCases(up) {
			for _, cp := range allProtocols {
				if cp.family() == up.family() && isTruncation(fc.plan.failure) {
					continue // TestPassthroughStreamTruncation
				}
				t.Run(pairName(cp, up)+"/"+fc.name, func(t *testing.T) {
					env.mocks.resetAll(t)
					runStreamFailure(t, env, clients[cp], up, fc)
				})
			}
		}
	}
}

func runStreamFailure(t *testing.T, env *testEnv, c streamingClient, up proto, fc streamFailureCase) {
	cp := c.protocol()
	name := pairName(cp, up) + " upstream stream " + fc.name
	m := env.mocks[up]
	rep := failureReply(up)
	m.setReply(rep)
	s := buildStream(up, up.defaultModel(), rep)
	wantText := s.sentText
	if fc.plan.failure == streamTruncatedEnd {
		wantText = rep.Text
	}

	h := callHeld(c, env.plain[up], sharedConversation(cp.defaultModel()), m, fc.plan, streamOptions{})
	if _, hits := m.lastRequest(); hits != 1 {
		t.Errorf("%s: the upstream received %d requests, want 1", name, hits)
	}
	checkHeld(t, name, h)
	if h.err == nil {
		t.Fatalf("%s: the client's SDK reported a clean completion (text %q, stop %q, protocol end seen %v); want an error after the partial text",
			name, h.res.Text, h.res.Stop, h.res.Terminal)
	}
	if h.timedOut {
		t.Fatalf("%s: the client's stream never ended; it failed only when the test's %v deadline passed: %s", name, callTimeout, describeStreamErr(h.err))
	}
	if h.res.Text != wantText {
		t.Errorf("%s: partial text before the error = %q, want %q", name, h.res.Text, wantText)
	}
	if !isInStreamError(cp, h.err) {
		t.Errorf("%s: the client got %s; want its protocol's in-stream error (the stream must end with an error event, not a broken connection or a parse failure)",
			name, describeStreamErr(h.err))
	}
	if h.res.Terminal && (cp == openaiResponses || cp.isAnthropic()) {
		t.Errorf("%s: the client got its protocol's end of a complete answer (response.completed / message_stop) before the error %s", name, describeStreamErr(h.err))
	}
	if fc.plan.failure == streamInError {
		if msg := streamErrorMessage(h.err); !strings.Contains(msg, midStreamMessage(up)) {
			t.Errorf("%s: error message %q, want it to carry the upstream's %q", name, msg, midStreamMessage(up))
		}
	}
	if t.Failed() {
		t.Logf("%s: the client's error: %s", name, describeStreamErr(h.err))
	}
}

// TestPassthroughStreamTruncation checks the passthrough pairs (one wire
// family on both sides) with an upstream stream that ends cleanly before
// its terminal event ([DONE], response.completed, message_stop, a Gemini
// finishReason), in the middle of the text or right before the terminal
// event: the SDKs take the end of the body for the end of the stream, so
// llmbridge must add the protocol's in-stream error after the partial
// text, never let the answer look complete.
func TestPassthroughStreamTruncation(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, up := range allProtocols {
		for _, fc := range streamFailureCases(up) {
			if !isTruncation(fc.plan.failure) {
				continue
			}
			for _, cp := range allProtocols {
				if cp.family() != up.family() {
					continue
				}
				t.Run(pairName(cp, up)+"/"+fc.name, func(t *testing.T) {
					env.mocks.resetAll(t)
					runStreamFailure(t, env, clients[cp], up, fc)
				})
			}
		}
	}
}

// isInStreamError reports whether err is what client protocol p's SDK
// yields for an error event inside a stream: openai-go's StreamError (a
// data: line with a top-level "error"), a Responses error or
// response.failed event, anthropic-sdk-go's API error from event: error,
// genai's APIError from an error object in the stream, the AWS SDK's
// exception from an exception message of the event stream.
func isInStreamError(p proto, err error) bool {
	switch p {
	case openaiChat:
		var se *ssestream.StreamError
		return errors.As(err, &se)
	case openaiResponses:
		var se *ssestream.StreamError
		var re *responsesStreamError
		return errors.As(err, &se) || errors.As(err, &re)
	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		// Anthropic's Bedrock client reads an exception as an error
		// event.
		var ae *anthropic.Error
		return errors.As(err, &ae) && ae.StatusCode == http.StatusOK
	case gemini, vertex:
		var ge genai.APIError
		return errors.As(err, &ge)
	case bedrockConverse:
		return isConverseStreamException(err)
	case geminiInteractions, vertexInteractions:
		var ie *interactionsStreamError
		return errors.As(err, &ie)
	}
	return false
}

// newClientStreamRequest builds a small streamed request of client
// protocol p, sent to base as its SDK streams: the streaming method (with
// alt=sse for Gemini) or "stream": true, Chat asking for usage.
func newClientStreamRequest(t *testing.T, base string, p proto) *http.Request {
	t.Helper()
	return newClientStreamRequestFor(t, base, p, p.defaultModel())
}

// newClientStreamRequestFor is newClientStreamRequest for model.
func newClientStreamRequestFor(t *testing.T, base string, p proto, model string) *http.Request {
	t.Helper()
	body := minimalBody(p, model)
	path := p.clientPath(model)
	if method, streaming, ok := p.streamMethod(); ok {
		path = strings.TrimSuffix(path, method) + streaming
	}
	switch p {
	case gemini, vertex:
		path += "?alt=sse"
	case bedrockAnthropic, bedrockConverse:
		// Bedrock streams by its path alone.
	case openaiChat:
		body = []byte(strings.Replace(string(body), `{`, `{"stream":true,"stream_options":{"include_usage":true},`, 1))
	default:
		body = []byte(strings.Replace(string(body), `{`, `{"stream":true,`, 1))
	}
	req := newClientRequest(t, http.MethodPost, base, p, model, body)
	u, err := req.URL.Parse(base + path)
	if err != nil {
		t.Fatal(err)
	}
	req.URL = u
	return req
}

// TestStreamingJSONErrors checks that an upstream answering a streamed
// request with a JSON 429 (Retry-After and a rate-limit header) gives every
// client SDK an error with status 429, not a stream, with the upstream's
// message and headers.
func TestStreamingJSONErrors(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				name := pairName(cp, up) + " streamed request answered 429"
				message := fmt.Sprintf("itest: %s rate limit on a streamed request", up)
				hdr := http.Header{"Retry-After": {"7"}}
				hdr.Set(rateLimitHeader(up), "0")
				env.mocks[up].setScenario(scenario{Status: http.StatusTooManyRequests, Header: withNativeErrorHeader(up, http.StatusTooManyRequests, hdr), Body: nativeError(up, http.StatusTooManyRequests, message)})

				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				res, err := clients[cp].stream(ctx, env.plain[up], sharedConversation(cp.defaultModel()), streamOptions{})
				rec, hits := env.mocks[up].lastRequest()
				if hits != 1 || rec == nil || !rec.Stream {
					t.Errorf("%s: the upstream received %d requests (streamed: %v), want 1 streamed request", name, hits, rec != nil && rec.Stream)
				}
				if err == nil {
					t.Fatalf("%s: the client's stream completed (text %q, stop %q); want an error with status 429", name, res.Text, res.Stop)
				}
				if status, ok := sdkErrorStatus(err); !ok || status != http.StatusTooManyRequests {
					t.Fatalf("%s: client error = %s, want HTTP 429", name, describeStreamErr(err))
				}
				if res.Deltas > 0 || res.Text != "" {
					t.Errorf("%s: the client got text %q before the error; want no stream at all", name, res.Text)
				}
				if msg := sdkErrorMessage(err); !strings.Contains(msg, message) {
					t.Errorf("%s: client error message = %q, want it to contain the upstream's %q", name, msg, message)
				}
				if h, ok := sdkErrorHeader(err); ok {
					checkErrorHeaders(t, name+" (SDK error response)", up, hdr, h)
				}

				// The wire, for the SDKs that hide the headers: a JSON
				// error in the client's format, with the headers.
				resp := do(t, newClientStreamRequest(t, env.plain[up], cp))
				assertErrorFormat(t, name+" (raw streamed request)", cp, http.StatusTooManyRequests, resp)
				checkErrorHeaders(t, name+" (raw streamed request)", up, hdr, resp.Header)
			})
		}
	}
}

// TestStreamResetReportedAsBreak checks that an upstream connection reset
// in the middle of a translated stream reaches the client as a stream that
// broke off, not as one that ended cleanly but early: the codecs word the
// two differently ("broke off before it was complete" when the stream's
// end had a cause), and llmbridge logs a warning for the former. Today the
// translator drains its reader first, which reports a clean io.EOF when
// the cut fell between two events, and the upstream's error (reverse_proxy
// aborting) is never passed on: a reset is reported exactly like a clean
// truncation.
func TestStreamResetReportedAsBreak(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, cp := range allProtocols {
		up := openaiChat
		if cp.isOpenAI() {
			up = anthropicMsgs
		}
		t.Run(pairName(cp, up), func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[up]
			m.setReply(failureReply(up))
			messages := map[streamFailure]string{}
			for _, f := range []streamFailure{streamTruncatedMid, streamReset} {
				h := callHeld(clients[cp], env.plain[up], sharedConversation(cp.defaultModel()), m, streamPlan{failure: f}, streamOptions{})
				if h.err == nil {
					t.Fatalf("%s %s: the client's stream completed; want an error", pairName(cp, up), f)
				}
				messages[f] = streamErrorMessage(h.err)
			}
			if got := messages[streamReset]; got == messages[streamTruncatedMid] || !strings.Contains(got, "broke off") {
				t.Errorf("%s: after a connection reset the client's error says %q, the same as after a clean early end (%q); want it to say the stream broke off",
					pairName(cp, up), got, messages[streamTruncatedMid])
			}
		})
	}
}
