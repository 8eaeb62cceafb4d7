package gemini

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// opaqueParts are the parts of opaqueAnswer llmbridge does not
// translate, in order: the state it keeps and the image it drops.
var opaqueParts = []string{
	`{"executableCode":{"language":"PYTHON","code":"print(2+2)"}}`,
	`{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"4\n"}}`,
	`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}`,
	`{"partOf2027":{"x":[1,2]},"thoughtSignature":"c2lnMQ=="}`,
}

// kept are the indices of opaqueParts that are state.
var kept = []int{0, 1, 3}

// opaqueAnswer is a Gemini answer with code execution, a generated
// image, a signed part of a kind added later and the text of the answer.
func opaqueAnswer() string {
	return `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(opaqueParts, ",") +
		`,{"text":"The answer is 4."}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-2.5-pro","responseId":"r1"}`
}

// TestGeminiOpaqueParts: parts of a Gemini answer llmbridge does not
// translate never fail it. Code execution and signed parts are state: they
// travel in each client's continuation slot and come back whole, in place,
// to the Gemini upstream on the next turn. An unsigned image is display:
// it is dropped and listed in Response.Dropped. The text reaches every
// client.
func TestGeminiOpaqueParts(t *testing.T) {
	for _, u := range []codec.Protocol{codec.Gemini, codec.Vertex} {
		var resp codec.Response
		if err := codec.DecodeResponse(u, []byte(opaqueAnswer()), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Content) != 4 || resp.Content[3].Text != "The answer is 4." {
			t.Fatalf("content %+v", resp.Content)
		}
		for i, k := range kept {
			want := codec.Part{Type: codec.PartReasoning, Redacted: true, Origin: mapping.FamilyGemini, Signature: opaqueParts[k]}
			if !codectest.EqualDecoded(resp.Content[i], want) {
				t.Errorf("content[%d] = %+v, want %+v", i, resp.Content[i], want)
			}
		}
		if want := []string{"candidates[0].content.parts[2] (inlineData)"}; !slices.Equal(resp.Dropped, want) {
			t.Errorf("dropped %q, want %q", resp.Dropped, want)
		}
		for _, c := range codectest.OtherFamilies(u) {
			t.Run(string(u)+"->"+string(c), func(t *testing.T) {
				roundTrip(t, u, c, resp)
			})
		}
	}
}

// roundTrip answers a client of protocol c with resp and checks that
// the client's next turn gives the upstream u its parts back.
func roundTrip(t *testing.T, u, c codec.Protocol, resp codec.Response) {
	resp.Content = slices.Clone(resp.Content)
	out, err := codec.AppendResponse(nil, c, &resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, hidden := range []string{"print(2+2)", "iVBORw0KGgo", "partOf2027"} {
		if strings.Contains(string(out), hidden) {
			t.Errorf("%s reached the client: %s", hidden, out)
		}
	}
	if !strings.Contains(string(out), "The answer is 4.") {
		t.Errorf("the answer is missing: %s", out)
	}
	var req codec.Request
	if err := codec.DecodeRequest(c, codectest.NextTurn(t, c, out), &req); err != nil {
		t.Fatal(err)
	}
	up, err := codec.AppendRequest(nil, u, &req, codec.EncodeOptions{Model: "gemini-2.5-pro"})
	if err != nil {
		t.Fatal(err)
	}
	parts := gjson.GetBytes(up, "contents.1.parts").Array()
	if c == codec.OpenAIChat {
		// Chat carries state only in the id of a tool call that follows
		// it (TestGeminiOpaqueChatToolLoop); here none does, so the
		// state is dropped and reported.
		want := []string{"content[0].signature", "content[1].signature", "content[2].signature"}
		if !slices.Equal(resp.Dropped[1:], want) || len(parts) != 1 {
			t.Errorf("dropped %q, model turn %s", resp.Dropped, up)
		}
		return
	}
	if len(parts) != 4 {
		t.Fatalf("model turn %s", up)
	}
	for i, k := range kept {
		if parts[i].Raw != opaqueParts[k] {
			t.Errorf("part %d came back as %s, want %s", i, parts[i].Raw, opaqueParts[k])
		}
	}
	if parts[3].Get("text").Str != "The answer is 4." {
		t.Errorf("answer part %s", parts[3].Raw)
	}
}

// TestGeminiStreamOpaqueParts: in a stream, each part llmbridge does not
// translate is state (a redacted reasoning part whose opaque value is the
// part as sent) or display (an EventDropped naming its kind), and the
// stream goes on; every client gets the answer.
func TestGeminiStreamOpaqueParts(t *testing.T) {
	chunk := func(part string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[` + part + `]},"index":0}],"responseId":"r1","modelVersion":"m"}`
	}
	chunks := []string{chunk(`{"text":"Let me compute."}`)}
	for _, p := range opaqueParts {
		chunks = append(chunks, chunk(p))
	}
	chunks = append(chunks, chunk(`{"text":"The answer is 4."}`),
		`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"responseId":"r1","modelVersion":"m"}`)
	for _, u := range []codec.Protocol{codec.Gemini, codec.Vertex} {
		evs := codectest.DecodeStream(t, u, geminiSSE(chunks...), nil)
		codectest.CheckWellFormed(t, evs)
		var kept, dropped []string
		for _, ev := range evs {
			switch {
			case ev.Type == codec.EventPartStop && ev.Signature != "":
				kept = append(kept, ev.Signature)
			case ev.Type == codec.EventDropped:
				dropped = append(dropped, ev.Text)
			}
		}
		want := []string{opaqueParts[0], opaqueParts[1], opaqueParts[3]}
		if !slices.Equal(kept, want) || !slices.Equal(dropped, []string{"inlineData"}) {
			t.Errorf("%s: kept %q, dropped %q", u, kept, dropped)
		}
		for _, c := range codectest.OtherFamilies(u) {
			sse := codectest.EncodeStream(c, &codec.Request{Model: "m", Stream: true}, evs)
			if !strings.Contains(sse, "Let me compute.") || !strings.Contains(sse, "The answer is 4.") ||
				strings.Contains(sse, "print(2+2)") || strings.Contains(sse, "iVBORw0KGgo") {
				t.Errorf("%s -> %s:\n%s", u, c, sse)
			}
		}
	}
}

// TestGeminiSignedMediaIsState: an image that carries a thoughtSignature
// is state, kept whole; one that does not is dropped, streamed or not.
func TestGeminiSignedMediaIsState(t *testing.T) {
	tests := []struct {
		name, part string
		kept       bool
	}{
		{"signed image", `{"inlineData":{"mimeType":"image/png","data":"AA=="},"thoughtSignature":"c2ln"}`, true},
		{"unsigned image", `{"inlineData":{"mimeType":"image/png","data":"AA=="}}`, false},
		{"unsigned file", `{"fileData":{"mimeType":"image/png","fileUri":"gs://b/x.png"}}`, false},
		{"function response", `{"functionResponse":{"name":"f","response":{}}}`, true},
		{"unsigned thought image", `{"inlineData":{"mimeType":"image/png","data":"AA=="},"thought":true}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"candidates":[{"content":{"role":"model","parts":[` + tt.part + `,{"text":"ok"}]},"finishReason":"STOP"}]}`
			var resp codec.Response
			if err := codec.DecodeResponse(codec.Gemini, []byte(body), &resp); err != nil {
				t.Fatal(err)
			}
			kept := len(resp.Content) == 2 && wire.IsOpaque(&resp.Content[0], mapping.FamilyGemini) && resp.Content[0].Signature == tt.part
			if kept != tt.kept || len(resp.Dropped) == 0 == !tt.kept || resp.Content[len(resp.Content)-1].Text != "ok" {
				t.Errorf("content %+v dropped %q", resp.Content, resp.Dropped)
			}
			evs := codectest.DecodeStream(t, codec.Gemini, geminiSSE(body), nil)
			codectest.CheckWellFormed(t, evs)
			streamKept := slices.ContainsFunc(evs, func(ev codec.Event) bool { return ev.Signature == tt.part })
			streamDropped := slices.ContainsFunc(evs, func(ev codec.Event) bool { return ev.Type == codec.EventDropped })
			if streamKept != tt.kept || streamDropped == tt.kept {
				t.Errorf("stream events %v", eventStrings(evs))
			}
		})
	}
}

// TestGeminiOpaqueChatToolLoop: in a tool loop, a Chat client carries the
// state parts in the id of the call that follows them, and the Gemini
// upstream gets them back before the call (after the message's text, which
// a Chat message holds before its calls).
func TestGeminiOpaqueChatToolLoop(t *testing.T) {
	body := strings.Replace(opaqueAnswer(), `{"text":"The answer is 4."}`,
		`{"text":"Checking."},{"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Paris"}}}`, 1)
	var resp codec.Response
	if err := codec.DecodeResponse(codec.Gemini, []byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	out, err := codec.AppendResponse(nil, codec.OpenAIChat, &resp)
	if err != nil {
		t.Fatal(err)
	}
	next := `{"model":"m","messages":[{"role":"user","content":"Q"},` + gjson.GetBytes(out, "choices.0.message").Raw +
		`,{"role":"tool","tool_call_id":` + gjson.GetBytes(out, "choices.0.message.tool_calls.0.id").Raw + `,"content":"sunny"}]}`
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIChat, []byte(next), &req); err != nil {
		t.Fatal(err)
	}
	up, err := codec.AppendRequest(nil, codec.Gemini, &req, codec.EncodeOptions{Model: "gemini-2.5-pro"})
	if err != nil {
		t.Fatal(err)
	}
	parts := gjson.GetBytes(up, "contents.1.parts").Array()
	if len(parts) != 5 {
		t.Fatalf("model turn %s", up)
	}
	for i, k := range kept {
		if parts[i+1].Raw != opaqueParts[k] {
			t.Errorf("part %d came back as %s, want %s", i+1, parts[i+1].Raw, opaqueParts[k])
		}
	}
	if parts[0].Get("text").Str != "Checking." || parts[4].Get("functionCall.name").Str != "get_weather" {
		t.Errorf("model turn %s", up)
	}
}

// TestEncodersIgnoreDropped: EventDropped changes nothing in what any
// client stream encoder writes.
func TestEncodersIgnoreDropped(t *testing.T) {
	resp := &codec.Response{ID: "r1", Model: "m", StopReason: mapping.StopEnd, Usage: codec.Usage{Known: true, InputTokens: 3, OutputTokens: 4},
		Content: []codec.Part{{Type: codec.PartText, Text: "Hello"}, {Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f", Arguments: `{"a":1}`}}}
	plain := codec.AppendResponseEvents(nil, resp)
	var withDropped []codec.Event
	for _, ev := range plain {
		withDropped = append(withDropped, ev)
		if ev.Type != codec.EventEnd {
			withDropped = append(withDropped, codec.Event{Type: codec.EventDropped, Text: "inlineData"})
		}
	}
	codectest.CheckWellFormed(t, withDropped)
	for _, c := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.VertexAnthropic, codec.Gemini, codec.Vertex} {
		req := &codec.Request{Model: "m", Stream: true}
		if got, want := codectest.EncodeStream(c, req, withDropped), codectest.EncodeStream(c, req, plain); got != want {
			t.Errorf("%s: with EventDropped\n%s\nwithout\n%s", c, got, want)
		}
	}
}
