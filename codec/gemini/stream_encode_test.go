package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// textEvents is a canonical stream of two text deltas.
func textEvents(stop codec.StopReason, usage codec.Usage) []codec.Event {
	return []codec.Event{
		{Type: codec.EventStart, ID: "resp-1", Model: "gemini-2.5-flash"},
		{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
		{Type: codec.EventPartDelta, Index: 0, Text: "Hello"},
		{Type: codec.EventPartDelta, Index: 0, Text: ", \"world\"\n"},
		{Type: codec.EventPartStop, Index: 0},
		{Type: codec.EventStop, StopReason: stop},
		{Type: codec.EventUsage, Usage: usage},
		{Type: codec.EventEnd},
	}
}

// checkStreamGolden compares an encoded stream with
// testdata/gemini/stream_<name>.sse, byte for byte; with -update it
// rewrites the file instead.
func checkStreamGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(codectest.Testdata, "gemini", "stream_"+name+".sse")
	if *codectest.Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in this package writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n got: %q\nwant: %q", path, got, want)
	}
}

// streamEncodeCases are the encoder's golden cases.
var streamEncodeCases = []struct {
	name string
	req  *codec.Request
	evs  []codec.Event
}{
	{name: "text", req: &codec.Request{Model: "client-model"},
		evs: textEvents(mapping.StopEnd, mapping.FromGeminiUsage(11, 0, 0, 5, 0))},
	{name: "refusal", req: &codec.Request{},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "resp-2", Model: "gpt-4o"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartRefusal},
			{Type: codec.EventPartDelta, Index: 0, Text: "I can't help with that."},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 20, OutputTokens: 7}},
			{Type: codec.EventStop, StopReason: mapping.StopRefusal},
			{Type: codec.EventEnd},
		}},
	{name: "max_tokens", req: &codec.Request{},
		evs: textEvents(mapping.StopMaxTokens, mapping.FromGeminiUsage(11, 0, 0, 16, 0))},
	// Input usage known from the start (an Anthropic upstream): every
	// chunk repeats the latest usage, the final one the final usage.
	{name: "usage_before_stop", req: &codec.Request{},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_1", Model: "claude-sonnet-4", Usage: codec.Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 1}},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "One"},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 4}},
			{Type: codec.EventPartDelta, Index: 0, Text: " two"},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 9}},
			{Type: codec.EventStop, StopReason: mapping.StopSequence, StopSequence: "three"},
			{Type: codec.EventEnd},
		}},
	// Usage known only at the end (a Chat upstream), after the stop, with
	// reasoning tokens; no model anywhere.
	{name: "usage_after_stop", req: &codec.Request{},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "chatcmpl-1"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Fine."},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventStop, StopReason: mapping.StopEnd},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 12, CacheReadTokens: 4, OutputTokens: 40, ReasoningTokens: 32}},
			{Type: codec.EventEnd},
		}},
	{name: "error_mid_stream", req: &codec.Request{Model: "client-model"},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_2"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Partial"},
			{Type: codec.EventError, Err: &codec.Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: codec.AnthropicMessages}},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventEnd},
		}},
	{name: "error_before_content", req: &codec.Request{Model: "client-model"},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "resp-3"},
			{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Rate limit reached", Code: "rate_limit_exceeded", Protocol: codec.OpenAIChat}},
		}},
	// No usage and no stop reason: no usageMetadata, finishReason STOP.
	{name: "no_usage", req: &codec.Request{Model: "client-model"},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "resp-4"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "a"},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventPartStart, Index: 1, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 1, Text: "b"},
			{Type: codec.EventPartStop, Index: 1},
			{Type: codec.EventEnd},
		}},
	// Tool calls (an OpenAI upstream): argument fragments are buffered and
	// each call is one chunk with the complete args; a call without
	// fragments gets args {}; the text before them is a chunk of its own.
	{name: "tool_calls", req: &codec.Request{Model: "client-model"},
		evs: []codec.Event{
			{Type: codec.EventStart, ID: "chatcmpl-9"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Checking."},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventPartStart, Index: 1, Part: codec.PartToolCall, ToolCallID: "call_a", ToolName: "weather"},
			{Type: codec.EventPartDelta, Index: 1, Text: `{"location":`},
			{Type: codec.EventPartDelta, Index: 1, Text: `"Paris"}`},
			{Type: codec.EventPartStop, Index: 1},
			{Type: codec.EventPartStart, Index: 2, Part: codec.PartToolCall, ToolCallID: "call_b", ToolName: "now"},
			{Type: codec.EventPartStop, Index: 2},
			{Type: codec.EventStop, StopReason: mapping.StopToolUse},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 40, OutputTokens: 20}},
			{Type: codec.EventEnd},
		}},
}

// TestGeminiStreamEncodeGolden checks the encoder's output byte for byte.
func TestGeminiStreamEncodeGolden(t *testing.T) {
	for _, tt := range streamEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.Gemini, codec.Vertex} {
				got := codectest.EncodeStream(p, tt.req, tt.evs)
				checkStreamGolden(t, tt.name, got)
			}
		})
	}
}

// TestGeminiStreamEncoder covers what the golden files do not: generated
// ids, the request's model, events without a start, and that nothing
// follows a terminal event.
func TestGeminiStreamEncoder(t *testing.T) {
	t.Run("tool call arguments that are no object", func(t *testing.T) {
		got := codectest.EncodeStream(codec.Gemini, &codec.Request{}, []codec.Event{
			{Type: codec.EventStart, ID: "r"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartToolCall, ToolCallID: "call_a", ToolName: "weather"},
			{Type: codec.EventPartDelta, Index: 0, Text: `[1]`},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventEnd},
		})
		want := "data: {\"error\":{\"code\":502,\"message\":\"the upstream sent tool call arguments that are not a JSON object\",\"status\":\"INTERNAL\"}}\r\n\r\n"
		if got != want {
			t.Errorf("got %q", got)
		}
	})
	t.Run("generated id is stable; request model", func(t *testing.T) {
		got := codectest.EncodeStream(codec.Gemini, &codec.Request{Model: "m-from-request"}, []codec.Event{
			{Type: codec.EventStart},
			{Type: codec.EventPartStart, Part: codec.PartText},
			{Type: codec.EventPartDelta, Text: "a"},
			{Type: codec.EventPartDelta, Text: ""},
			{Type: codec.EventPartDelta, Text: "b"},
			{Type: codec.EventPartStop},
			{Type: codec.EventEnd},
			{Type: codec.EventPartDelta, Text: "after the end"},
			{Type: codec.EventError, Err: codec.NewError(mapping.ErrAPI, "after the end")},
		})
		chunks := genaiChunks(t, got)
		if len(chunks) != 3 {
			t.Fatalf("%d chunks, want 3: %q", len(chunks), got)
		}
		id := chunks[0].ResponseID
		if len(id) != 24 || strings.Trim(id, "0123456789abcdef") != "" {
			t.Errorf("response id %q is not 24 hex digits", id)
		}
		for _, c := range chunks {
			if c.ResponseID != id || c.ModelVersion != "m-from-request" || c.UsageMetadata != nil {
				t.Errorf("chunk %+v: want id %q, the request's model and no usage", c, id)
			}
		}
	})
	t.Run("no start, nil request, nil error", func(t *testing.T) {
		got := codectest.EncodeStream(codec.Vertex, nil, []codec.Event{
			{Type: codec.EventPartDelta, Text: "x"},
			{Type: codec.EventError},
			{Type: codec.EventEnd},
		})
		want := `data: {"error":{"code":502,"message":"the upstream stream failed","status":"INTERNAL"}}` + "\r\n\r\n"
		if !strings.HasSuffix(got, want) || strings.Count(got, "data: ") != 2 || strings.Contains(got, "modelVersion") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("a second start changes nothing", func(t *testing.T) {
		enc := newStreamEncoder(&codec.Request{})
		enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "one", Model: "m1"})
		got := string(enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "two", Model: "m2", Usage: codec.Usage{Known: true}}))
		got += string(enc.Encode(nil, &codec.Event{Type: codec.EventPartDelta, Text: "t"}))
		if !strings.Contains(got, `"modelVersion":"m1","responseId":"one"`) || strings.Contains(got, "usageMetadata") {
			t.Errorf("got %q", got)
		}
	})
}

// genaiChunk is the part of genai's GenerateContentResponse the tests
// read.
type genaiChunk struct {
	Candidates []struct {
		Content *struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					ID   string         `json:"id"`
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        int    `json:"index"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		TotalTokenCount         int64 `json:"totalTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	ResponseID   string `json:"responseId"`
}

// genaiAPIError is genai's APIError.
type genaiAPIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// genaiScan is the split function of google.golang.org/genai v1.77.0
// (api_client.go, scan), which frames its streams: blocks end at the first
// "\n\n" in the buffer, else at the first "\r\n\r\n".
func genaiScan(data []byte, atEOF bool) (advance int, token []byte, err error) {
	dropCR := func(b []byte) []byte {
		if len(b) > 0 && b[len(b)-1] == '\r' {
			return b[:len(b)-1]
		}
		return b
	}
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
		return i + 2, dropCR(data[0:i]), nil
	}
	if i := bytes.Index(data, []byte("\r\n\r\n")); i >= 0 {
		return i + 4, dropCR(data[0:i]), nil
	}
	if atEOF {
		return len(data), dropCR(data), nil
	}
	return 0, nil, nil
}

// genaiRead reads a stream as genai v1.77.0's iterateResponseStream
// does (the package is not a dependency of this module): each block is cut
// at its first colon; a "data" block is a response unless its object has
// an "error" member, which is returned as an APIError; any other block is
// an error. It returns the responses and the first error.
func genaiRead(t *testing.T, body string) ([]genaiChunk, *genaiAPIError) {
	t.Helper()
	var chunks []genaiChunk
	data := []byte(body)
	for len(data) > 0 {
		adv, block, _ := genaiScan(data, true)
		data = data[adv:]
		if len(block) == 0 {
			continue
		}
		prefix, payload, _ := bytes.Cut(block, []byte(":"))
		if string(prefix) != "data" {
			t.Fatalf("genai would fail on block %q", block)
		}
		var raw map[string]any
		if err := json.Unmarshal(payload, &raw); err != nil {
			t.Fatalf("genai cannot unmarshal %q: %v", payload, err)
		}
		if raw["error"] != nil {
			var e struct {
				Error *genaiAPIError `json:"error"`
			}
			if err := json.Unmarshal(payload, &e); err == nil && e.Error != nil {
				return chunks, e.Error
			}
		}
		var c genaiChunk
		if err := json.Unmarshal(payload, &c); err != nil {
			t.Fatalf("genai cannot convert %q: %v", payload, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

// genaiChunks reads a stream that must not fail.
func genaiChunks(t *testing.T, body string) []genaiChunk {
	t.Helper()
	chunks, apiErr := genaiRead(t, body)
	if apiErr != nil {
		t.Fatalf("unexpected error %+v", apiErr)
	}
	return chunks
}

// TestGeminiStreamEncodeGenaiFraming reads the golden streams as genai
// does: text, finish reason, usage and errors come out as the canonical
// events said.
func TestGeminiStreamEncodeGenaiFraming(t *testing.T) {
	for _, tt := range streamEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			want := codectest.Summarize(untilTerminal(tt.evs))
			want.Text, _ = streamContent(t, tt.evs)
			_, wantCalls := streamContent(t, tt.evs)
			body := codectest.EncodeStream(codec.Gemini, tt.req, tt.evs)
			chunks, apiErr := genaiRead(t, body)
			var text, finish string
			var calls []codec.Part
			for i, c := range chunks {
				if len(c.Candidates) != 1 || c.Candidates[0].Content == nil || c.Candidates[0].Content.Role != "model" {
					t.Fatalf("chunk %d: %+v", i, c)
				}
				for _, p := range c.Candidates[0].Content.Parts {
					text += p.Text
					if f := p.FunctionCall; f != nil {
						args, _ := json.Marshal(f.Args)
						calls = append(calls, codec.Part{Type: codec.PartToolCall, ToolCallID: f.ID, ToolName: f.Name, Arguments: string(args)})
					}
				}
				if f := c.Candidates[0].FinishReason; f != "" {
					if i != len(chunks)-1 {
						t.Errorf("finishReason %q before the last chunk", f)
					}
					finish = f
				}
			}
			if text != want.Text+want.Refusal {
				t.Errorf("text %q, want %q", text, want.Text+want.Refusal)
			}
			for i := range wantCalls {
				if wantCalls[i].Arguments == "" {
					wantCalls[i].Arguments = "{}"
				}
			}
			if !codectest.EqualDecoded(calls, wantCalls) {
				t.Errorf("calls %+v, want %+v", calls, wantCalls)
			}
			if want.Err != nil {
				if apiErr == nil || apiErr.Code != codec.ClientStatus(codec.Gemini, want.Err) || apiErr.Message != want.Err.Message || apiErr.Status == "" {
					t.Errorf("error %+v, want %+v", apiErr, want.Err)
				}
				if finish != "" {
					t.Errorf("finishReason %q on a failed stream", finish)
				}
				return
			}
			if apiErr != nil || finish != mapping.GeminiFinishReason(want.Stop) {
				t.Errorf("error %+v finish %q, want finish %q", apiErr, finish, mapping.GeminiFinishReason(want.Stop))
			}
			last := chunks[len(chunks)-1].UsageMetadata
			if !want.Usage.Known {
				if last != nil {
					t.Errorf("usage %+v invented", last)
				}
				return
			}
			u := want.Usage
			if last == nil || last.PromptTokenCount != u.InputTokens || last.CandidatesTokenCount != u.GeminiCandidatesTokens() ||
				last.ThoughtsTokenCount != u.ReasoningTokens || last.CachedContentTokenCount != u.CacheReadTokens ||
				last.TotalTokenCount != u.TotalTokens() {
				t.Errorf("final usage %+v, want %+v", last, u)
			}
		})
	}
}
