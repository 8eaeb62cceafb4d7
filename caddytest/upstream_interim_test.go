package caddytest

import (
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// interimCase is a sequence of informational responses an upstream sends
// before its answer.
type interimCase struct {
	name string
	// codes are the upstream's 1xx statuses, in order.
	codes []int
	// expect makes the client send Expect: 100-continue and wait for
	// Caddy's 100 Continue before its body.
	expect bool
}

// interimCases are the informational responses tested: 103 Early Hints,
// 100 Continue for a client that sent Expect, and both.
var interimCases = []interimCase{
	{name: "103", codes: []int{http.StatusEarlyHints}},
	{name: "expect-100", codes: []int{http.StatusContinue}, expect: true},
	{name: "expect-100-103", codes: []int{http.StatusContinue, http.StatusEarlyHints}, expect: true},
}

// interimHTTP is a client that sends a request's body only after a 100
// Continue when the request carries Expect: 100-continue.
var interimHTTP = &http.Client{Timeout: callTimeout, Transport: &http.Transport{
	DisableCompression: true, ExpectContinueTimeout: 5 * time.Second, MaxIdleConnsPerHost: 8, IdleConnTimeout: 30 * time.Second}}

// seenInterim records the informational responses a client received.
type seenInterim struct {
	mu    sync.Mutex
	codes []int
	links []string
}

// trace returns a client trace that records into s.
func (s *seenInterim) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.codes = append(s.codes, code)
		if code == http.StatusEarlyHints {
			s.links = append(s.links, h.Get("Link"))
		}
		return nil
	}}
}

// TestUpstreamInformationalResponses has every upstream protocol answer
// with informational responses (103 Early Hints; 100 Continue, with a
// client that sent Expect: 100-continue; both) before its 200 JSON answer
// and before its 200 event stream, for every client protocol.
// reverse_proxy forwards each 1xx to the client with WriteHeader(1xx);
// llmbridge's response writers must not take it for the final status. The
// client must get the 103 with its Link header, and then a complete answer
// in its own protocol with the upstream's text.
func TestUpstreamInformationalResponses(t *testing.T) {
	env := setup(t)
	for _, ic := range interimCases {
		for _, up := range allProtocols {
			for _, cp := range allProtocols {
				for _, stream := range []bool{false, true} {
					t.Run(ic.name+"/"+pairName(cp, up)+"/"+modeName(stream), func(t *testing.T) {
						env.mocks.resetAll(t)
						f := env.fronts[up]
						t.Cleanup(f.reset)
						f.setPlan(frontPlan{interim: ic.codes})
						runInterim(t, env, ic, cp, up, stream)
					})
				}
			}
		}
	}
}

func runInterim(t *testing.T, env *testEnv, ic interimCase, cp, up proto, stream bool) {
	name := pairName(cp, up) + " " + modeName(stream) + " after upstream " + ic.name
	var req *http.Request
	if stream {
		req = newClientStreamRequest(t, env.fronted[up], cp)
	} else {
		model := cp.defaultModel()
		req = newClientRequest(t, http.MethodPost, env.fronted[up], cp, model, minimalBody(cp, model))
	}
	if ic.expect {
		req.Header.Set("Expect", "100-continue")
	}
	var seen seenInterim
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), seen.trace()))
	o, body, err := readClientAnswer(interimHTTP, cp, req)
	if err != nil {
		t.Fatalf("%s: the request failed: %v (after %q)", name, err, clip(string(body)))
	}
	if _, hits := env.mocks[up].lastRequest(); hits != 1 {
		t.Errorf("%s: the upstream received %d requests, want 1", name, hits)
	}
	if slices.Contains(ic.codes, http.StatusEarlyHints) {
		seen.mu.Lock()
		links := seen.links
		seen.mu.Unlock()
		if len(links) != 1 || links[0] != earlyHintsLink {
			t.Errorf("%s: the client received 103 Early Hints with Link %q, want once with %q (reverse_proxy forwards it)", name, links, earlyHintsLink)
		}
	}
	if o.status != http.StatusOK {
		t.Fatalf("%s: HTTP %d, want 200: %s", name, o.status, clip(string(body)))
	}
	want := "application/json"
	if stream {
		want = clientStreamType(cp)
	}
	if o.contentType != want {
		t.Fatalf("%s: Content-Type %q, want %s: %s", name, o.contentType, want, clip(string(body)))
	}
	for _, p := range o.problems {
		t.Errorf("%s: the answer is not valid %s: %s", name, cp, p)
	}
	if stream && o.streamEnd != "end" {
		t.Errorf("%s: the stream ended with %q (%s), want the end of a complete answer", name, o.streamEnd, o.errMessage)
	}
	if wantText := "Olá from " + string(up) + "! \"quoted\" ✓"; o.text != wantText {
		t.Errorf("%s: text %q, want the upstream's %q", name, o.text, wantText)
	}
	if strings.Contains(string(body), "HTTP/1.1") {
		t.Errorf("%s: the body carries a status line: %s", name, clip(string(body)))
	}
}
