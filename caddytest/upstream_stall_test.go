package caddytest

import (
	"net/http"
	"testing"
	"time"
)

// stallSlack is how much later than reverse_proxy's read_timeout a
// stalled answer may end for the client.
const stallSlack = 2 * time.Second

// stallKind is how an upstream stops sending.
type stallKind int

const (
	// stallMidStream: headers and the stream's first events (start and
	// text deltas), then nothing.
	stallMidStream stallKind = iota
	// stallMidJSON: headers and half of a JSON body, then nothing.
	stallMidJSON
	// stallBeforeHeadersJSON and stallBeforeHeadersStream: the request is
	// read and nothing is ever answered, for a non-streamed and a
	// streamed request.
	stallBeforeHeadersJSON
	stallBeforeHeadersStream
)

// stallCase is one way an upstream stalls, and what the client must get.
type stallCase struct {
	name   string
	kind   stallKind
	stream bool
}

// stallCases are the stalls tested for every client protocol.
var stallCases = []stallCase{
	{"mid-stream", stallMidStream, true},
	{"mid-json-body", stallMidJSON, false},
	{"before-headers-json", stallBeforeHeadersJSON, false},
	{"before-headers-stream", stallBeforeHeadersStream, true},
}

// TestUpstreamStalls has an upstream stop sending while keeping its
// connection open, behind a reverse_proxy with transport read_timeout
// (frontReadTimeout), for every client protocol against an upstream of
// another wire family and one of its own (passthrough). Within the
// timeout plus stallSlack, and not before the timeout:
//
//   - a stream that stalls after its first text deltas ends cleanly (the
//     body ends properly) with the client protocol's in-stream error,
//     after exactly the text sent, and the upstream request is cancelled;
//   - a JSON body that stalls halfway is answered 502 or 504 in the
//     client's format by a translated pair; a passthrough pair has
//     already passed the status and the first bytes on, so its client must
//     see the body break off (never a complete answer);
//   - an upstream that never sends headers is answered 502 or 504 in the
//     client's format, streamed request or not.
//
// reverse_proxy's stream_timeout does not apply here: it only limits
// upgraded connections (WebSockets), not event streams.
func TestUpstreamStalls(t *testing.T) {
	env := setup(t)
	for _, sc := range stallCases {
		for _, cp := range allProtocols {
			for _, up := range []proto{crossUpstream[cp], sameUpstream[cp]} {
				t.Run(sc.name+"/"+pairName(cp, up), func(t *testing.T) {
					env.mocks.resetAll(t)
					t.Cleanup(env.fronts[up].reset)
					runStall(t, env, sc, cp, up)
				})
			}
		}
	}
}

func runStall(t *testing.T, env *testEnv, sc stallCase, cp, up proto) {
	name := pairName(cp, up) + " upstream stalls " + sc.name
	passthrough := cp.family() == up.family()
	m, f := env.mocks[up], env.fronts[up]
	var hold *streamHold
	switch sc.kind {
	case stallMidStream:
		hold = newStreamHold(frontStallLimit)
		m.setStreamPlan(streamPlan{hold: hold})
	case stallMidJSON:
		f.setPlan(frontPlan{stallJSONBody: true})
	case stallBeforeHeadersJSON, stallBeforeHeadersStream:
		f.setPlan(frontPlan{stallBeforeHeaders: true})
	}
	var req *http.Request
	if sc.stream {
		req = newClientStreamRequest(t, env.fronted[up], cp)
	} else {
		model := cp.defaultModel()
		req = newClientRequest(t, http.MethodPost, env.fronted[up], cp, model, minimalBody(cp, model))
	}
	start := time.Now()
	o, body, err := readClientAnswer(rawHTTP, cp, req)
	elapsed := time.Since(start)
	if elapsed > frontReadTimeout+stallSlack {
		t.Errorf("%s: the client's answer ended after %v, want within read_timeout %v + %v", name, elapsed.Round(time.Millisecond), frontReadTimeout, stallSlack)
	}
	if elapsed < frontReadTimeout {
		t.Errorf("%s: the client's answer ended after %v, before read_timeout %v: something other than the timeout ended it", name, elapsed.Round(time.Millisecond), frontReadTimeout)
	}

	switch sc.kind {
	case stallMidStream:
		if err != nil {
			t.Fatalf("%s: the client's body broke off (%v) after %q; want a stream that ends properly", name, err, clip(string(body)))
		}
		if o.status != http.StatusOK || o.contentType != clientStreamType(cp) {
			t.Fatalf("%s: HTTP %d %q, want a 200 event stream: %s", name, o.status, o.contentType, clip(string(body)))
		}
		for _, p := range o.problems {
			t.Errorf("%s: the stream is not valid %s: %s", name, cp, p)
		}
		if o.streamEnd != "error" {
			t.Errorf("%s: the stream ended with %q, want the client protocol's in-stream error", name, o.streamEnd)
		}
		if o.trailing != "" {
			t.Errorf("%s: an event after the in-stream error: %s", name, o.trailing)
		}
		if want := buildStream(up, up.defaultModel(), currentReply(m)).sentText; o.text != want {
			t.Errorf("%s: text %q before the error, want the %q the upstream sent", name, o.text, want)
		}
		if outcome, _, ok := hold.result(stallSlack); !ok || outcome != holdCancelled {
			t.Errorf("%s: the stalled upstream request ended with %q (ended: %v), want it cancelled", name, outcome, ok)
		}
	case stallMidJSON:
		if passthrough && err != nil {
			// The status and the first half went through; the client sees
			// the body break off, as from the provider itself.
			t.Logf("%s: HTTP %d, then the body broke off after %d bytes: %v", name, o.status, len(body), err)
			break
		}
		if err != nil {
			t.Fatalf("%s: the request failed: %v; want 502 or 504 in the client's format", name, err)
		}
		checkGatewayError(t, name, cp, o, body)
	default:
		if err != nil {
			t.Fatalf("%s: the request failed: %v; want 502 or 504 in the client's format", name, err)
		}
		checkGatewayError(t, name, cp, o, body)
	}
}

// currentReply is the reply mock m answers with by default.
func currentReply(m *mockUpstream) reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reply
}

// checkGatewayError checks that o is a 502 or 504 JSON error in client
// protocol cp's format.
func checkGatewayError(t *testing.T, name string, cp proto, o clientOutcome, body []byte) {
	t.Helper()
	t.Logf("%s: HTTP %d %s", name, o.status, clip(string(body)))
	want := http.StatusBadGateway
	if o.status == http.StatusGatewayTimeout {
		want = o.status
	}
	for _, p := range errorFormatProblems(cp, want, o.status, o.contentType, body) {
		t.Errorf("%s: %s", name, p)
	}
}
