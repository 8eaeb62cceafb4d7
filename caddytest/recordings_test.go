package caddytest

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// recordingsDir is where the shared recorded provider traffic lives: beside
// the repository, as in CI.
const recordingsDir = "../../shared/recordings"

// recording is one recorded exchange (see the recordings' README).
type recording struct {
	id   string
	root gjson.Result
}

// loadRecordings returns the recordings of protocol p whose file name
// matches pattern, skipping t when the recordings are not present.
func loadRecordings(t *testing.T, p proto, pattern string) []recording {
	t.Helper()
	if _, err := os.Stat(recordingsDir); err != nil {
		t.Skip("../shared/recordings not present")
	}
	files, err := filepath.Glob(filepath.Join(recordingsDir, string(p), pattern))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []recording
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !gjson.ValidBytes(b) {
			t.Fatalf("%s is not JSON", f)
		}
		root := gjson.ParseBytes(b)
		out = append(out, recording{id: root.Get("id").String(), root: root})
	}
	return out
}

// recordedModel returns the model a recorded request names, from the URL
// path for protocols that carry it there.
func recordedModel(p proto, r recording) string {
	if !p.modelInPath() {
		return r.root.Get("request.body.model").String()
	}
	u := r.root.Get("request.url").String()
	i := strings.LastIndex(u, "/models/")
	if i < 0 {
		return ""
	}
	m := u[i+len("/models/"):]
	if j := strings.IndexByte(m, ':'); j >= 0 {
		m = m[:j]
	}
	return m
}

// recordedUpstreamURI is the mock's path and query for a recorded request:
// the streaming method and its query (alt=sse) when the recorded URL used
// them.
func recordedUpstreamURI(p proto, r recording) string {
	model := recordedModel(p, r)
	u, err := url.Parse(r.root.Get("request.url").String())
	if err != nil || !p.isStreamPath(u.Path) {
		return p.upstreamPath(model)
	}
	uri := p.upstreamStreamPath(model)
	if u.RawQuery != "" {
		uri += "?" + u.RawQuery
	}
	return uri
}

// TestMocksAcceptRecordedRequests sends every recorded real request body
// straight to the mock of its protocol: a mock that rejected real provider
// traffic would make the suite fail for the wrong reason.
func TestMocksAcceptRecordedRequests(t *testing.T) {
	env := setup(t)
	for _, p := range allProtocols {
		for _, r := range loadRecordings(t, p, "*.json") {
			body := r.root.Get("request.body")
			if !body.IsObject() || r.root.Get("request_synthesized").Bool() || r.root.Get("request.method").String() != http.MethodPost {
				continue
			}
			t.Run(r.id, func(t *testing.T) {
				env.mocks.resetAll(t)
				m := env.mocks[p]
				req, err := http.NewRequest(http.MethodPost, m.srv.URL+recordedUpstreamURI(p, r), strings.NewReader(body.Raw))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				setClientCredential(req, p, upstreamKey)
				resp := do(t, req)
				v := m.takeViolations()
				if status := r.root.Get("response.status").Int(); status >= 400 {
					// The provider refused it: the mock may too (a model
					// rule it enforces), with the same class of error.
					if len(v) > 0 && status != int64(resp.Status) {
						t.Errorf("the %s mock answered %d to %s, which the provider answered %d", p, resp.Status, r.id, status)
					}
					return
				}
				if len(v) > 0 {
					t.Errorf("the %s mock rejects the real recorded request %s:\n  %s", p, r.id, strings.Join(v, "\n  "))
				}
				if resp.Status != 200 {
					t.Errorf("the %s mock answered %d to the recorded request %s: %s", p, resp.Status, r.id, resp.Body)
				}
			})
		}
	}
}

// recordedText returns the assistant text of a recorded response body of
// protocol p.
func recordedText(p proto, body gjson.Result) string {
	var b strings.Builder
	switch p.family() {
	case openaiChat:
		return body.Get("choices.0.message.content").String()
	case openaiResponses:
		for _, item := range body.Get("output").Array() {
			if item.Get("type").Str != "message" {
				continue
			}
			for _, c := range item.Get("content").Array() {
				if c.Get("type").Str == "output_text" {
					b.WriteString(c.Get("text").Str)
				}
			}
		}
	case anthropicMsgs:
		for _, c := range body.Get("content").Array() {
			if c.Get("type").Str == "text" {
				b.WriteString(c.Get("text").Str)
			}
		}
	case gemini:
		for _, part := range body.Get("candidates.0.content.parts").Array() {
			if !part.Get("thought").Bool() {
				b.WriteString(part.Get("text").Str)
			}
		}
	}
	return b.String()
}

// recordedUsage returns the usage of a recorded response body of protocol p
// in the suite's inclusive meaning.
func recordedUsage(p proto, body gjson.Result) (in, out int64) {
	switch p.family() {
	case openaiChat:
		return body.Get("usage.prompt_tokens").Int(), body.Get("usage.completion_tokens").Int()
	case openaiResponses:
		return body.Get("usage.input_tokens").Int(), body.Get("usage.output_tokens").Int()
	case anthropicMsgs:
		u := body.Get("usage")
		return u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int(), u.Get("output_tokens").Int()
	case gemini:
		u := body.Get("usageMetadata")
		return u.Get("promptTokenCount").Int() + u.Get("toolUsePromptTokenCount").Int(), u.Get("candidatesTokenCount").Int() + u.Get("thoughtsTokenCount").Int()
	}
	return 0, 0
}

// replayCase is a recorded success response replayed by an upstream mock,
// with the stop reason each client must see.
type replayCase struct {
	upstream proto
	file     string
	// stop returns the normalised stop reason a client of protocol p must
	// get.
	stop func(p proto) string
}

func always(stop string) func(proto) string { return func(proto) string { return stop } }

// replayCases are the real non-streamed success recordings replayed to
// every client. A stop sequence is only visible to clients whose protocol
// has a stop reason for it (Anthropic's and Converse's); the others see a
// natural end.
var replayCases = []replayCase{
	{openaiChat, "gpt-4o-text.json", always("end")},
	{openaiResponses, "gpt-4o-text.json", always("end")},
	{anthropicMsgs, "claude-sonnet-4-text.json", always("end")},
	{anthropicMsgs, "claude-sonnet-4-5-cache-read.json", always("end")},
	{anthropicMsgs, "claude-sonnet-4-5-cache-write.json", always("end")},
	{anthropicMsgs, "claude-sonnet-4-5-stop-sequence.json", func(p proto) string {
		if p.isAnthropic() || p == bedrockConverse {
			return "stop_sequence"
		}
		return "end"
	}},
	{vertexAnthropic, "claude-3-7-sonnet-text.json", always("end")},
	{gemini, "gemini-2.5-flash-text.json", always("end")},
	{gemini, "max-tokens.json", always("max_tokens")},
	{vertex, "gemini-2.5-flash-text.json", always("end")},
}

// TestReplayRecordings has upstream mocks replay real recorded responses
// (status, Content-Type and body as recorded) to every client SDK: the
// client gets the recorded text, the stop reason and the recorded usage in
// its own meaning; same-family clients get the recorded bytes unchanged.
func TestReplayRecordings(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, rc := range replayCases {
		recs := loadRecordings(t, rc.upstream, rc.file)
		if len(recs) != 1 {
			t.Errorf("recording %s/%s not found in %s", rc.upstream, rc.file, recordingsDir)
			continue
		}
		r := recs[0]
		up := rc.upstream
		body := r.root.Get("response.body").String()
		parsed := gjson.Parse(body)
		sc := scenario{
			Status: int(r.root.Get("response.status").Int()),
			Header: http.Header{"Content-Type": {r.root.Get("response.headers.content-type").String()}},
			Body:   body,
		}
		wantText := recordedText(up, parsed)
		wantIn, wantOut := recordedUsage(up, parsed)
		for _, cp := range allProtocols {
			t.Run(pairName(cp, up)+"/"+strings.TrimSuffix(rc.file, ".json"), func(t *testing.T) {
				env.mocks.resetAll(t)
				name := pairName(cp, up) + " replaying " + r.id
				env.mocks[up].setScenario(sc)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				res, err := clients[cp].generate(ctx, env.plain[up], sharedConversation(cp.defaultModel()))
				if err != nil {
					t.Fatalf("%s: the client call failed: %s", name, describeErr(err))
				}
				if res.Text != wantText {
					t.Errorf("%s: client text = %q, want the recorded %q", name, res.Text, wantText)
				}
				if want := rc.stop(cp); res.Stop != want {
					t.Errorf("%s: client stop reason = %q, want %q", name, res.Stop, want)
				}
				if res.InputTokens != wantIn || res.OutputTokens != wantOut {
					t.Errorf("%s: client usage = %d input / %d output tokens, want the recorded %d / %d in inclusive meaning",
						name, res.InputTokens, res.OutputTokens, wantIn, wantOut)
				}
				if cp.family() == up.family() {
					model := cp.defaultModel()
					resp := do(t, newClientRequest(t, http.MethodPost, env.plain[up], cp, model, minimalBody(cp, model)))
					if !bytes.Equal(resp.Body, []byte(body)) {
						t.Errorf("%s: a same-family client got\n %q\nwant the recorded bytes\n %q", name, resp.Body, body)
					}
				}
			})
		}
	}
}

// TestReplayRecordedErrors has upstream mocks replay every real recorded
// error response to every client SDK: the client gets an error with the
// recorded status (529 as 503 for clients that are not Anthropic's) and
// the provider's message, and the raw answer is in the client's format.
func TestReplayRecordedErrors(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, up := range allProtocols {
		for _, r := range loadRecordings(t, up, "*.json") {
			status := int(r.root.Get("response.status").Int())
			body := r.root.Get("response.body").String()
			ct := r.root.Get("response.headers.content-type").String()
			if status < 400 || !strings.HasPrefix(ct, "application/json") || !gjson.Valid(body) {
				continue
			}
			// The headers that must reach the client as sent; the
			// Content-Type changes with the translation.
			kept := http.Header{}
			if ra := r.root.Get("response.headers.retry-after"); ra.Exists() {
				kept.Set("Retry-After", ra.String())
			}
			hdr := kept.Clone()
			hdr.Set("Content-Type", ct)
			message := gjson.Get(body, "error.message").String()
			for _, cp := range allProtocols {
				t.Run(pairName(cp, up)+"/"+strings.TrimPrefix(r.id, string(up)+"/"), func(t *testing.T) {
					env.mocks.resetAll(t)
					name := pairName(cp, up) + " replaying " + r.id
					env.mocks[up].setScenario(scenario{Status: status, Header: hdr, Body: body})
					want := status
					if want == 529 && !cp.reads529() {
						want = http.StatusServiceUnavailable
					}
					ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
					defer cancel()
					_, err := clients[cp].generate(ctx, env.plain[up], sharedConversation(cp.defaultModel()))
					if err == nil {
						t.Fatalf("%s: the client call succeeded; want an error with status %d", name, want)
					}
					if _, hits := env.mocks[up].lastRequest(); hits != 1 {
						t.Fatalf("%s: the upstream received %d requests, want 1; the client got %s", name, hits, describeErr(err))
					}
					if got, ok := sdkErrorStatus(err); !ok || got != want {
						t.Errorf("%s: client error = %s, want HTTP %d", name, describeErr(err), want)
					}
					if msg := sdkErrorMessage(err); message != "" && !strings.Contains(msg, message) {
						t.Errorf("%s: client error message = %q, want it to contain the provider's %q", name, msg, message)
					}
					model := cp.defaultModel()
					resp := do(t, newClientRequest(t, http.MethodPost, env.plain[up], cp, model, minimalBody(cp, model)))
					assertErrorFormat(t, name+" (raw request)", cp, want, resp)
					checkErrorHeaders(t, name+" (raw request)", up, kept, resp.Header)
				})
			}
		}
	}
}
