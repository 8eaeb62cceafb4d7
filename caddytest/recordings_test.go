package caddytest

import (
	"bytes"
	"context"
	"net/http"
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
				req, err := http.NewRequest(http.MethodPost, m.srv.URL+p.upstreamPath(recordedModel(p, r)), strings.NewReader(body.Raw))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				setClientCredential(req, p, upstreamKey)
				resp := do(t, req)
				if v := m.takeViolations(); len(v) > 0 {
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

// TestReplayRecordedText has each upstream mock replay its real recorded
// text response (status, Content-Type and body as recorded) to every client
// SDK: the client gets the recorded text, a natural end of turn and the
// recorded usage in its own meaning; same-family clients get the recorded
// bytes unchanged.
func TestReplayRecordedText(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, up := range allProtocols {
		recs := loadRecordings(t, up, "*-text.json")
		if len(recs) == 0 {
			t.Errorf("no %s text recording found in %s", up, recordingsDir)
			continue
		}
		r := recs[0]
		body := r.root.Get("response.body").String()
		parsed := gjson.Parse(body)
		sc := scenario{
			Status: int(r.root.Get("response.status").Int()),
			Header: http.Header{"Content-Type": {r.root.Get(`response.headers.content-type`).String()}},
			Body:   body,
		}
		wantText := recordedText(up, parsed)
		wantIn, wantOut := recordedUsage(up, parsed)
		for _, cp := range allProtocols {
			t.Run(pairName(cp, up)+"/"+r.id, func(t *testing.T) {
				env.mocks.resetAll(t)
				name := pairName(cp, up) + " replaying " + r.id
				env.mocks[up].setScenario(sc)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				res, err := clients[cp].generate(ctx, env.plain[up], sharedConversation(cp.defaultModel()))
				if err != nil {
					t.Fatalf("%s: the client call failed: %v", name, err)
				}
				if res.Text != wantText {
					t.Errorf("%s: client text = %q, want the recorded %q", name, res.Text, wantText)
				}
				if res.Stop != "end" {
					t.Errorf("%s: client stop reason = %q, want end", name, res.Stop)
				}
				if res.InputTokens != wantIn || res.OutputTokens != wantOut {
					t.Errorf("%s: client usage = %d/%d, want the recorded %d/%d", name, res.InputTokens, res.OutputTokens, wantIn, wantOut)
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
