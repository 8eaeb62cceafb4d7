package caddytest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// heldStream is the outcome of a streaming call whose upstream held back
// its closing events until the client had seen a text delta.
type heldStream struct {
	res streamResult
	err error
	// outcome is how the upstream's hold ended (holdReleased when the
	// client's first text delta released it); empty when the upstream
	// never reached its hold point.
	outcome string
	// timedOut reports that the call's deadline passed: the stream hung.
	timedOut bool
}

// callHeld makes a streaming call of client c to base with the mock m of
// the site's upstream answering with plan, holding its closing events (or
// its failure) until the client's first text delta releases it. A client
// that sees no delta before the upstream's closing events leaves the mock
// to time out after holdTimeout, which the outcome reports.
func callHeld(c streamingClient, base string, conv conversation, m *mockUpstream, plan streamPlan, o streamOptions) heldStream {
	hold := newStreamHold(holdTimeout)
	plan.hold = hold
	m.setStreamPlan(plan)
	var h heldStream
	next := o.onText
	o.onText = func(s string) {
		hold.Release()
		if next != nil {
			next(s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	h.res, h.err = c.stream(ctx, base, conv, o)
	h.timedOut = ctx.Err() != nil
	h.outcome, _, _ = hold.result(time.Second)
	return h
}

// checkHeld fails t unless the client's first text delta is what released
// the upstream's hold: it reached the client while the upstream still held
// back its closing events.
func checkHeld(t *testing.T, name string, h heldStream) {
	t.Helper()
	switch h.outcome {
	case holdReleased:
	case "":
		t.Errorf("%s: the upstream never reached the point where it holds back its closing events", name)
	default:
		t.Errorf("%s: no text delta reached the client while the upstream held back its closing events (hold %s after %v): the stream is not delivered incrementally",
			name, h.outcome, holdTimeout)
	}
}

// streamingReply is the answer the streaming pair tests configure: text
// split into several deltas, the stop reason and the usage runPair uses.
func streamingReply(up proto, stop string) reply {
	want := reply{Text: fmt.Sprintf("¡Hola! «%s» streamed via llmbridge (%s) — \"ok\" ✓", up, stop), Stop: stop, Usage: defaultUsage}
	if stop == "max_tokens" {
		want.Usage = usage{Input: 42, Output: 321, Reasoning: 21}
	}
	return want
}

// checkStreamResult checks a complete streamed answer against want.
func checkStreamResult(t *testing.T, name string, res streamResult, want reply) {
	t.Helper()
	if res.Text != want.Text {
		t.Errorf("%s: streamed text = %q, want %q", name, res.Text, want.Text)
	}
	if res.Refusal != "" {
		t.Errorf("%s: streamed refusal = %q, want none", name, res.Refusal)
	}
	if res.Stop != want.Stop {
		t.Errorf("%s: stop reason = %q, want %q", name, res.Stop, want.Stop)
	}
	if !res.Terminal {
		t.Errorf("%s: the stream ended without the protocol's end of a complete answer", name)
	}
	if res.InputTokens != want.Usage.Input || res.OutputTokens != want.Usage.Output {
		t.Errorf("%s: usage = %d input / %d output tokens, want %d / %d (upstream reported %+v; inclusive meaning: cache reads in input, reasoning in output)",
			name, res.InputTokens, res.OutputTokens, want.Usage.Input, want.Usage.Output, want.Usage)
	}
	if res.FinalText != "" && res.FinalText != res.Text {
		t.Errorf("%s: the final response object's text %q differs from the streamed deltas %q", name, res.FinalText, res.Text)
	}
}

// TestStreamingPairs streams the shared conversation from every client
// SDK's streaming API through every upstream protocol's streaming form, for
// a natural end and for output cut by max tokens: the upstream gets a valid
// streamed request carrying the conversation; the client assembles the
// text from several deltas, gets the stop reason and the usage in its own
// meaning, and gets its first delta while the upstream still holds back
// its closing events.
func TestStreamingPairs(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				for _, stop := range []string{"end", "max_tokens"} {
					runStreamingPair(t, env, clients[cp], up, stop)
				}
			})
		}
	}
}

func runStreamingPair(t *testing.T, env *testEnv, c streamingClient, up proto, stop string) {
	cp := c.protocol()
	name := fmt.Sprintf("%s streaming (upstream stop %s)", pairName(cp, up), stop)
	m := env.mocks[up]
	m.clearRequests()
	want := streamingReply(up, stop)
	m.setReply(want)
	conv := sharedConversation(cp.defaultModel())

	h := callHeld(c, env.plain[up], conv, m, streamPlan{}, streamOptions{})
	rec, hits := m.lastRequest()
	if hits != 1 {
		t.Errorf("%s: the upstream received %d requests, want 1", name, hits)
	}
	if rec != nil {
		if !rec.Stream {
			t.Errorf("%s: the upstream request %s %s?%s did not ask for a stream", name, rec.Method, rec.Path, rec.RawQuery)
		}
		checkUpstreamConversation(t, name, up, rec, upstreamConversation(cp, up, conv))
	}
	if h.err != nil {
		t.Errorf("%s: the client's stream failed: %s (after %q)", name, describeStreamErr(h.err), h.res.Text)
		return
	}
	checkHeld(t, name, h)
	checkStreamResult(t, name, h.res, want)
	if h.res.Deltas < 2 {
		t.Errorf("%s: the text arrived in %d delta(s); the upstream sent %d", name, h.res.Deltas, len(splitText(want.Text, streamTextPieces)))
	}
}
