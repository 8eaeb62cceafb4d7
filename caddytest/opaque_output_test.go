package caddytest

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// opaqueCase is an upstream answer holding output no client protocol of
// another family can express: state that must come back to the upstream
// on the next turn, and display that is dropped and reported.
type opaqueCase struct {
	name string
	up   proto
	// answer and stream are the upstream's answer, as JSON and as SSE.
	answer, stream string
	// text is the answer every client must get.
	text string
	// state are the opaque values the clients carry, byte for byte as the
	// upstream sent them.
	state []string
	// dropped are the kinds of output dropped, as the
	// Llmbridge-Dropped-Output header and the metric name them.
	dropped []string
	// returned extracts the state from the upstream's next request.
	returned func(body []byte) []string
}

// geminiOpaqueStateParts are the parts of a Gemini answer that are state:
// code execution and a signed part of a kind added later.
var geminiOpaqueStateParts = []string{
	`{"executableCode":{"language":"PYTHON","code":"print(2+2)"}}`,
	`{"partOf2027":{"x":[1,2]},"thoughtSignature":"c2lnMQ=="}`,
}

// geminiImagePart is display: an image the model made, unsigned.
const geminiImagePart = `{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}`

// responsesCompaction is a compaction item of the Responses API.
const responsesCompaction = `{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAAABcompacted"}`

// opaqueCases are the upstream answers TestOpaqueUpstreamOutput replays.
func opaqueCases() []opaqueCase {
	geminiParts := []string{geminiOpaqueStateParts[0], geminiImagePart, geminiOpaqueStateParts[1], `{"text":"The answer is 4."}`}
	geminiTail := `,"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`
	var geminiStream strings.Builder
	for i, p := range geminiParts {
		finish := ""
		if i == len(geminiParts)-1 {
			finish = `,"finishReason":"STOP"`
		}
		geminiStream.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[` + p + `]}` + finish + `,"index":0}]` + geminiTail + "\r\n\r\n")
	}

	rsEv := func(typ, fields string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + "}\n\n"
	}
	rsMessage := `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The answer.","annotations":[]}]}`
	rsHead := `{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}`
	rsStream := rsEv("response.created", `"response":`+rsHead) +
		rsEv("response.output_item.added", `"output_index":0,"item":{"type":"compaction","id":"cmp_1"}`) +
		rsEv("response.output_item.done", `"output_index":0,"item":`+responsesCompaction) +
		rsEv("response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`) +
		rsEv("response.content_part.added", `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`) +
		rsEv("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"The answer."`) +
		rsEv("response.output_text.done", `"item_id":"msg_1","output_index":1,"content_index":0,"text":"The answer."`) +
		rsEv("response.output_item.done", `"output_index":1,"item":`+rsMessage) +
		rsEv("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[`+responsesCompaction+`,`+rsMessage+`],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}`)

	chatChunk := func(delta, finish string) string {
		return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-audio-preview","choices":[{"index":0,"delta":` +
			delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	chatStream := chatChunk(`{"role":"assistant","content":null}`, "null") +
		chatChunk(`{"audio":{"id":"audio_abc","transcript":"Hello "}}`, "null") +
		chatChunk(`{"audio":{"transcript":"there.","data":"UklGRiQAAABXQVZF"}}`, "null") +
		chatChunk(`{"images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}`, "null") +
		chatChunk(`{}`, `"stop"`) + "data: [DONE]\n\n"

	return []opaqueCase{
		{
			name: "gemini code execution, signed part and image",
			up:   gemini,
			answer: `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(geminiParts, ",") + `]},"finishReason":"STOP","index":0}]` +
				geminiTail,
			stream:  geminiStream.String(),
			text:    "The answer is 4.",
			state:   geminiOpaqueStateParts,
			dropped: []string{"inlineData"},
			returned: func(body []byte) []string {
				var got []string
				for _, p := range gjson.GetBytes(body, "contents.1.parts").Array() {
					if !p.Get("text").Exists() {
						got = append(got, p.Raw)
					}
				}
				return got
			},
		},
		{
			name: "responses compaction item",
			up:   openaiResponses,
			answer: `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` + responsesCompaction + `,` + rsMessage +
				`],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}`,
			stream: rsStream,
			text:   "The answer.",
			state:  []string{responsesCompaction},
			returned: func(body []byte) []string {
				var got []string
				for _, item := range gjson.GetBytes(body, "input").Array() {
					if item.Get("type").Str == "compaction" {
						got = append(got, item.Raw)
					}
				}
				return got
			},
		},
		{
			name: "chat audio and images",
			up:   openaiChat,
			answer: `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-audio-preview","choices":[{"index":0,` +
				`"message":{"role":"assistant","content":null,"refusal":null,"audio":{"id":"audio_abc","data":"UklGRiQAAABXQVZF","expires_at":1700003600,"transcript":"Hello there."},` +
				`"images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`,
			stream:  chatStream,
			text:    "Hello there.",
			state:   []string{`{"audio":{"id":"audio_abc"}}`},
			dropped: []string{"images", "audio"},
			returned: func(body []byte) []string {
				if a := gjson.GetBytes(body, "messages.1.audio"); a.Exists() {
					return []string{`{"audio":` + a.Raw + `}`}
				}
				return nil
			},
		},
	}
}

// TestOpaqueUpstreamOutput: output of a Gemini, Responses or Chat upstream
// that the client's protocol cannot express never fails the answer. Every
// client of another family gets the text, streamed and not. State (code
// execution, signed parts, a compaction item, the id of an audio answer)
// travels in the client's continuation slot and comes back byte for byte
// to the upstream on the next turn; display (a generated image, the sound
// of an audio answer) is dropped and reported in the
// Llmbridge-Dropped-Output header and the dropped_output_total metric.
// Chat clients carry state only in a tool call's id, which these answers
// have none of: their state is dropped and reported too.
func TestOpaqueUpstreamOutput(t *testing.T) {
	env := setup(t)
	for _, tc := range opaqueCases() {
		for _, cp := range allProtocols {
			if cp.family() == tc.up.family() {
				continue
			}
			for _, streamed := range []bool{false, true} {
				name := tc.name + "/" + pairName(cp, tc.up)
				if streamed {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					opaqueOnce(t, env, tc, cp, streamed)
				})
			}
		}
	}
}

// opaqueOnce replays tc's answer to a client of protocol cp and, when the
// client has a continuation slot, checks its next turn.
func opaqueOnce(t *testing.T, env *testEnv, tc opaqueCase, cp proto, streamed bool) {
	env.mocks.resetAll(t)
	m := env.mocks[tc.up]
	before := scrapeMetrics(t)
	var req *http.Request
	if streamed {
		m.setScenario(scenario{Status: 200, Header: sseHeader, Body: tc.stream})
		req = newClientStreamRequest(t, env.plain[tc.up], cp)
	} else {
		m.setScenario(scenario{Status: 200, Body: tc.answer})
		req = newClientRequest(t, http.MethodPost, env.plain[tc.up], cp, cp.defaultModel(), minimalBody(cp, cp.defaultModel()))
	}
	resp := do(t, req)
	if resp.Status != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.Status, resp.Body)
	}
	var o clientOutcome
	if streamed {
		decodeClientStream(&o, cp, resp.Body)
	} else {
		decodeClientJSON(&o, cp, resp.Body)
	}
	if len(o.problems) > 0 || o.text != tc.text {
		t.Fatalf("the client got %q (problems %v): %s", o.text, o.problems, resp.Body)
	}
	for _, hidden := range []string{"print(2+2)", "iVBORw0KGgo", "UklGR", "gAAAAABcompacted"} {
		if strings.Contains(string(resp.Body), hidden) {
			t.Errorf("%s reached the client: %s", hidden, resp.Body)
		}
	}
	after := scrapeMetrics(t)
	header := resp.Header.Get("Llmbridge-Dropped-Output")
	for _, kind := range tc.dropped {
		key := metric("caddy_llmbridge_dropped_output_total", "kind", kind)
		if after[key] <= before[key] {
			t.Errorf("%s was not counted as dropped", kind)
		}
		if !streamed && !strings.Contains(header, "("+kind+")") {
			t.Errorf("Llmbridge-Dropped-Output %q does not name %s", header, kind)
		}
	}
	if cp == openaiChat {
		if !streamed && !strings.Contains(header, ".signature") {
			t.Errorf("Llmbridge-Dropped-Output %q does not report the state a Chat client cannot carry", header)
		}
		return
	}
	for _, s := range tc.state {
		if !slices.Contains(o.signatures, s) {
			t.Errorf("the client does not carry %s; it got %q", s, o.signatures)
		}
	}
	if streamed {
		return
	}
	env.mocks.resetAll(t)
	m.setScenario(scenario{Status: 200, Body: tc.answer})
	resp = do(t, newClientRequest(t, http.MethodPost, env.plain[tc.up], cp, cp.defaultModel(), opaqueNextTurn(t, cp, resp.Body)))
	if resp.Status != http.StatusOK {
		t.Fatalf("next turn: HTTP %d: %s", resp.Status, resp.Body)
	}
	rec, _ := m.lastRequest()
	if got := tc.returned(rec.Body); !slices.Equal(got, tc.state) {
		t.Errorf("the state came back as %q, want %q\nupstream request: %s", got, tc.state, rec.Body)
	}
}

// opaqueNextTurn is the next request of a client of protocol cp whose
// answer was body: the question, the answer replayed verbatim, and a
// follow-up.
func opaqueNextTurn(t *testing.T, cp proto, body []byte) []byte {
	t.Helper()
	switch cp {
	case openaiResponses:
		out := gjson.GetBytes(body, "output").Raw
		return []byte(`{"model":"` + cp.defaultModel() + `","input":[{"role":"user","content":"Hi"},` + out[1:len(out)-1] + `,{"role":"user","content":"And?"}]}`)
	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		head := `{"model":"` + cp.defaultModel() + `",`
		switch cp {
		case vertexAnthropic:
			head = `{"anthropic_version":"` + vertexAnthropicVersion + `",`
		case bedrockAnthropic:
			head = `{"anthropic_version":"` + bedrockAnthropicVersion + `",`
		}
		return []byte(head + `"max_tokens":16,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":` +
			gjson.GetBytes(body, "content").Raw + `},{"role":"user","content":"And?"}]}`)
	case gemini, vertex:
		c := gjson.GetBytes(body, "candidates.0.content").Raw
		return []byte(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]},` + c + `,{"role":"user","parts":[{"text":"And?"}]}]}`)
	case bedrockConverse:
		m := gjson.GetBytes(body, "output.message").Raw
		return []byte(`{"messages":[{"role":"user","content":[{"text":"Hi"}]},` + m + `,{"role":"user","content":[{"text":"And?"}]}],"inferenceConfig":{"maxTokens":16}}`)
	case geminiInteractions, vertexInteractions:
		steps := gjson.GetBytes(body, "steps").Raw
		return []byte(`{"model":"` + cp.defaultModel() + `","input":[{"type":"user_input","content":[{"type":"text","text":"Hi"}]},` + steps[1:len(steps)-1] +
			`,{"type":"user_input","content":[{"type":"text","text":"And?"}]}]}`)
	}
	t.Fatalf("no next turn for %s", cp)
	return nil
}
