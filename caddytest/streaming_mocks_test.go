package caddytest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// TestMockStreams checks the mocks' streams with the official SDKs
// directly, without llmbridge: each protocol's own SDK reads its mock's
// stream as a complete answer, with the text in several deltas, the stop
// reason and usage in its meaning, and the first delta readable while the
// mock holds back its closing events.
func TestMockStreams(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, p := range allProtocols {
		t.Run(string(p), func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[p]
			for _, stop := range []string{"end", "max_tokens"} {
				name := fmt.Sprintf("%s SDK straight to its mock (stop %s)", p, stop)
				m.clearRequests()
				want := streamingReply(p, stop)
				m.setReply(want)
				h := callHeld(clients[p], m.srv.URL, sharedConversation(p.defaultModel()), m, streamPlan{}, streamOptions{project: vertexProject, xAPIKey: true})
				if h.err != nil {
					t.Errorf("%s: the SDK failed: %s", name, describeStreamErr(h.err))
					continue
				}
				checkHeld(t, name, h)
				checkStreamResult(t, name, h.res, want)
				if h.res.Deltas != len(splitText(want.Text, streamTextPieces)) {
					t.Errorf("%s: %d text deltas, want %d", name, h.res.Deltas, len(splitText(want.Text, streamTextPieces)))
				}
				if rec, _ := m.lastRequest(); rec == nil || !rec.Stream {
					t.Errorf("%s: the mock did not see a streamed request", name)
				}
			}
		})
	}
}

// mockStreamCase is one streamed request sent straight to a mock.
type mockStreamCase struct {
	name string
	// path is the mock's path and query for the model.
	path string
	body []byte
	// rejection is part of the violation the mock must report; empty for
	// a valid request, which it must answer with a complete stream.
	rejection string
}

// mockStreamCases are valid and invalid streamed requests of protocol p.
func mockStreamCases(p proto) []mockStreamCase {
	model := p.defaultModel()
	if p == vertexAnthropic {
		model = "claude-sonnet-4-5@20250929"
	}
	base := minimalBody(p, model)
	set := func(b []byte, path string, v any) []byte {
		out, err := sjson.SetBytes(b, path, v)
		if err != nil {
			panic(err)
		}
		return out
	}
	streamed := set(base, "stream", true)
	switch p {
	case openaiChat:
		return []mockStreamCase{
			{"valid", p.upstreamStreamPath(model), set(streamed, "stream_options.include_usage", true), ""},
			{"no stream_options", p.upstreamStreamPath(model), streamed, "include_usage"},
			{"include_usage false", p.upstreamStreamPath(model), set(streamed, "stream_options.include_usage", false), "include_usage"},
			{"stream_options without stream", p.upstreamPath(model), set(base, "stream_options.include_usage", true), "only allowed when stream is true"},
		}
	case openaiResponses, anthropicMsgs:
		return []mockStreamCase{
			{"valid", p.upstreamStreamPath(model), streamed, ""},
			{"stream not a boolean", p.upstreamStreamPath(model), set(base, "stream", "yes"), "stream must be a boolean"},
		}
	case gemini, vertex:
		return []mockStreamCase{
			{"valid", p.upstreamStreamPath(model) + "?alt=sse", base, ""},
			{"no alt=sse", p.upstreamStreamPath(model), base, "alt=sse"},
			{"stream field", p.upstreamStreamPath(model) + "?alt=sse", streamed, `unknown top-level fields ["stream"]`},
		}
	case bedrockAnthropic, bedrockConverse:
		return []mockStreamCase{
			{"valid", p.upstreamStreamPath(model), base, ""},
			{"stream member", p.upstreamStreamPath(model), streamed, `unknown top-level fields ["stream"]`},
		}
	case geminiInteractions, vertexInteractions:
		return []mockStreamCase{
			{"valid", p.upstreamStreamPath(model), streamed, ""},
			{"stream not a boolean", p.upstreamStreamPath(model), set(base, "stream", "yes"), "stream must be a boolean"},
		}
	case vertexAnthropic:
		return []mockStreamCase{
			{"valid", p.upstreamStreamPath(model), streamed, ""},
			{"streamRawPredict without stream", p.upstreamStreamPath(model), base, `needs "stream": true`},
			{"stream to rawPredict", p.upstreamPath(model), streamed, "must be sent to :streamRawPredict"},
		}
	}
	panic("unknown protocol " + string(p))
}

// endsWithTerminal reports whether a mock stream body of protocol p ends
// with its terminal event.
func endsWithTerminal(p proto, body string) bool {
	frames := parseFrames(body)
	if len(frames) == 0 {
		return false
	}
	last := frames[len(frames)-1]
	switch p.family() {
	case openaiChat:
		return last.data == "[DONE]" && strings.HasSuffix(body, "\n\n")
	case openaiResponses:
		return last.name == "response.completed"
	case anthropicMsgs:
		return last.name == "message_stop"
	case bedrockConverse:
		return last.name == "metadata"
	case geminiInteractions:
		return last.data == "[DONE]" && len(frames) > 1 && frames[len(frames)-2].name == "interaction.completed"
	}
	return strings.Contains(last.data, `"finishReason"`) && strings.HasSuffix(body, "\r\n\r\n")
}

// TestMockStreamingValidation checks that each mock rejects a streamed
// request its provider would not stream as llmbridge needs (Chat without
// stream_options.include_usage, Gemini without alt=sse, Anthropic on
// Vertex with the streaming method and the body flag disagreeing, a
// stream flag that is not a boolean) and answers a valid one with a
// complete event stream.
func TestMockStreamingValidation(t *testing.T) {
	env := setup(t)
	for _, p := range allProtocols {
		for _, tc := range mockStreamCases(p) {
			t.Run(string(p)+"/"+strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
				env.mocks.resetAll(t)
				m := env.mocks[p]
				name := fmt.Sprintf("%s mock, %s", p, tc.name)
				req, err := http.NewRequest(http.MethodPost, m.srv.URL+tc.path, strings.NewReader(string(tc.body)))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				setClientCredential(req, p, upstreamKey)
				resp := do(t, req)
				violations := strings.Join(m.takeViolations(), "\n")
				if tc.rejection != "" {
					if resp.Status != http.StatusBadRequest || !strings.Contains(violations, tc.rejection) {
						t.Errorf("%s: answered %d with violations %q; want 400 and a violation containing %q", name, resp.Status, violations, tc.rejection)
					}
					return
				}
				if violations != "" || resp.Status != http.StatusOK {
					t.Fatalf("%s: answered %d with violations %q; want 200 and none", name, resp.Status, violations)
				}
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, clientStreamType(p)) {
					t.Errorf("%s: Content-Type %q, want %s", name, ct, clientStreamType(p))
				}
				body := resp.Body
				if p.isAWS() {
					if body, err = unframeClientStream(body); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
				if !endsWithTerminal(p, string(body)) {
					t.Errorf("%s: the stream does not end with its terminal event:\n%s", name, resp.Body)
				}
			})
		}
	}
}
