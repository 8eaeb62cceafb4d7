package gemini

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamRecordingCases are the streaming recordings of the gemini
// and vertex directories and what a client must end up with after each.
var streamRecordingCases = []struct {
	file    string
	text    string
	stop    codec.StopReason
	usage   codec.Usage
	id      string
	model   string
	created string // Vertex createTime, RFC 3339
	// err is a substring of the message of the error that ends the
	// stream, "" when it completes; errStatus is its status.
	err       string
	errStatus int
	errCode   string
	// calls are the tool calls, with their arguments.
	calls []codec.Part
}{
	{file: "gemini/gemini-2.5-flash-text-stream.json", text: "Olá!", stop: mapping.StopEnd,
		usage: mapping.FromGeminiUsage(11, 0, 0, 2, 21), id: "VwCzabneCuzPz7IP0aL64A0", model: "gemini-2.5-flash"},
	{file: "gemini/gemini-2.5-pro-thinking-followup-stream.json", text: "It's 40 C in Florence, Italy. \n", stop: mapping.StopEnd,
		usage: mapping.FromGeminiUsage(148, 0, 0, 12, 0), id: "2wCzaeLrEpboz7IPt7SlwQE", model: "gemini-2.5-pro"},
	{file: "gemini/gemini-3-pro-signature-replay-followup-stream.json", text: "The capital of Mexico is Mexico City.", stop: mapping.StopEnd,
		usage: mapping.FromGeminiUsage(257, 0, 0, 8, 0), id: "REVVabaiCdq4qtsPnZu96Qo", model: "gemini-3-pro-preview"},
	// A blocked prompt: one chunk, no candidates, no usage.
	{file: "gemini/prompt-blocked-stream.json", stop: mapping.StopContentFilter},
	// Placeholder texts (edited source); citationMetadata is informational.
	{file: "gemini/recitation-stream.json", text: "text1text2text3text4text5text6text7text8", stop: mapping.StopContentFilter,
		usage: mapping.FromGeminiUsage(9, 0, 0, 261, 0), model: "gemini-2.0-flash"},
	{file: "vertex/gemini-2.5-flash-text-stream.json", text: `Olá! (pronounced "oh-LAH")`, stop: mapping.StopEnd,
		usage: mapping.FromGeminiUsage(9, 0, 0, 9, 36), id: "hACzaZf3G-Tjt8gPydPHkAI", model: "gemini-2.5-flash",
		created: "2026-03-12T18:05:56.457623Z"},
	// Thought summaries are skipped; the answer and the thoughts' tokens stay.
	{file: "vertex/gemini-2.5-flash-thought-summary-stream.json",
		text: "The sky is blue due to a phenomenon called **Rayleigh scattering**.\n\n1.  **Sunlight** is made of all colors, but blue and violet light have shorter wavelengths.\n2.  When sunlight enters Earth's atmosphere, it hits tiny **molecules of nitrogen and oxygen**.\n3.  These tiny molecules are just the right size to **scatter** the shorter, bluer wavelengths of light much more effectively than the longer, redder wavelengths.\n4.  This scattered blue light is dispersed in all directions across the sky, making it appear blue to our eyes. (While violet is scattered even more, our eyes are more sensitive to blue).",
		stop: mapping.StopEnd, usage: mapping.FromGeminiUsage(9, 0, 0, 134, 1067), id: "J5-HaL6iL9OVhMIPkuG6iA8", model: "gemini-2.5-flash",
		created: "2025-07-28T16:02:47.774462Z"},
	{file: "vertex/gemini-2.5-flash-tool-followup-stream.json", text: "The weather in Florence, Italy is 40 C.", stop: mapping.StopEnd,
		usage: mapping.FromGeminiUsage(89, 0, 0, 12, 0), id: "iACzaceBMJzr_dQPkszy8QI", model: "gemini-2.5-flash",
		created: "2026-03-12T18:06:00.786631Z"},
	{file: "vertex/safety-stream.json", text: "<redacted>", stop: mapping.StopContentFilter,
		usage: mapping.FromGeminiUsage(10, 0, 0, 66, 0), model: "gemini-1.5-flash"},
	// Edited source: both chunks carry finishReason STOP (as old Vertex
	// models did on every chunk), then the bare error arrives.
	{file: "vertex/mid-stream-error-499.json", text: "First Second ",
		err: "The operation was cancelled.", errStatus: 499, errCode: "CANCELLED"},
	// Tool calls: one part per call, STOP becomes tool_use; calls after
	// skipped thoughts keep the thoughts' tokens.
	{file: "gemini/gemini-2.5-flash-parallel-tools-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(121, 0, 0, 36, 38), id: "XQCzaYWvIqfRz7IPupTlyAk", model: "gemini-2.5-flash",
		calls: []codec.Part{
			{Type: codec.PartToolCall, ToolCallID: "call_XQCzaYWvIqfRz7IPupTlyAk_0", ToolName: "add", Arguments: `{"b": 3,"a": 2}`},
			{Type: codec.PartToolCall, ToolCallID: "call_XQCzaYWvIqfRz7IPupTlyAk_1", ToolName: "multiply", Arguments: `{"a": 2,"b": 3}`},
		}},
	{file: "gemini/gemini-2.5-pro-thinking-tool-call-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(54, 0, 0, 14, 64), id: "2ACzaf-8I9HRz7IPlMmB4Qk", model: "gemini-2.5-pro",
		calls: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_2ACzaf-8I9HRz7IPlMmB4Qk_0", ToolName: "weather", Arguments: `{"location": "Florence, Italy"}`}}},
	{file: "gemini/gemini-3-pro-tool-call-signature-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(29, 0, 0, 10, 202), id: "QUVVadTSNJ6_qtsPvN7J8Q0", model: "gemini-3-pro-preview",
		calls: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_QUVVadTSNJ6_qtsPvN7J8Q0_0", ToolName: "get_country", Arguments: `{}`}}},
	{file: "vertex/gemini-2.5-flash-tool-call-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(28, 0, 0, 5, 51), id: "hwCzaaiDK5-Ew-UP4tT9sAY", model: "gemini-2.5-flash",
		created: "2026-03-12T18:05:59.704936Z",
		calls:   []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_hwCzaaiDK5-Ew-UP4tT9sAY_0", ToolName: "weather", Arguments: `{"location": "Florence,Italy"}`}}},
	// Vertex streamFunctionCallArguments: the arguments are put together
	// from the partialArgs and sent as one delta.
	{file: "vertex/gemini-3.1-pro-partial-args-nested-stream-reframed.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(31, 0, 0, 684, 1026), id: "tjXVaYaxFISTq8YP_MWiyAo", model: "gemini-3.1-pro-preview",
		created: "2026-04-07T16:49:58.333958Z",
		calls:   []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_tjXVaYaxFISTq8YP_MWiyAo_0", ToolName: "cookRecipe", Arguments: lasagna}}},
}

// lasagna is the arguments object that the partialArgs of the
// partial-args recording put together.
const lasagna = `{"recipe":{"ingredients":[` +
	`{"amount":"16 oz","name":"Lasagna noodles"},{"amount":"1 lb","name":"Ground beef"},` +
	`{"amount":"15 oz","name":"Ricotta cheese"},{"amount":"3 cups","name":"Mozzarella cheese"},` +
	`{"amount":"1/2 cup","name":"Parmesan cheese"},{"amount":"24 oz","name":"Tomato sauce"},` +
	`{"amount":"1","name":"Egg"},{"amount":"2 cloves","name":"Garlic"},` +
	`{"amount":"1 tsp","name":"Salt"},{"amount":"1/2 tsp","name":"Pepper"}],` +
	`"name":"Lasagna","steps":["Preheat oven to 375°F (190°C).",` +
	`"Cook lasagna noodles according to package directions, drain and set aside.",` +
	`"Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",` +
	`"In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",` +
	`"In a 9x13 baking dish, spread a thin layer of meat sauce.",` +
	`"Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",` +
	`"Top with remaining mozzarella cheese.","Cover with foil and bake for 25 minutes.",` +
	`"Remove foil and bake for another 25 minutes until golden.","Let stand for 15 minutes before serving."]}}`

// TestGeminiStreamRecordings replays every streaming recording of the
// gemini and vertex directories through the decoder.
func TestGeminiStreamRecordings(t *testing.T) {
	for _, tt := range streamRecordingCases {
		t.Run(tt.file, func(t *testing.T) {
			p := recordingProtocol(tt.file)
			evs := decodeStream(t, p, streamBody(t, tt.file), nil)
			codectest.CheckWellFormed(t, evs)
			s := codectest.Summarize(evs)
			text, calls := streamContent(t, evs)
			if text != tt.text || s.Refusal != "" {
				t.Errorf("text %q refusal %q, want %q", text, s.Refusal, tt.text)
			}
			if !codectest.EqualDecoded(calls, tt.calls) {
				t.Errorf("calls %+v\nwant %+v", calls, tt.calls)
			}
			for i := range calls {
				if !json.Valid([]byte(calls[i].Arguments)) {
					t.Errorf("call %d arguments are not JSON: %s", i, calls[i].Arguments)
				}
			}
			if s.Usage != tt.usage {
				t.Errorf("usage %+v, want %+v", s.Usage, tt.usage)
			}
			if s.ID != tt.id || s.Model != tt.model {
				t.Errorf("id %q model %q, want %q %q", s.ID, s.Model, tt.id, tt.model)
			}
			if tt.created != "" {
				want, err := time.Parse(time.RFC3339Nano, tt.created)
				if err != nil {
					t.Fatal(err)
				}
				if evs[0].Type != codec.EventStart || evs[0].Created != want.Unix() {
					t.Errorf("start %+v, want created %d", evs[0], want.Unix())
				}
			}
			if tt.err == "" {
				if !s.Complete || s.Err != nil || s.Stop != tt.stop {
					t.Errorf("complete %v err %v stop %v, want complete with stop %v", s.Complete, s.Err, s.Stop, tt.stop)
				}
				return
			}
			if s.Complete || s.Err == nil || s.Stop != mapping.StopNone {
				t.Fatalf("complete %v err %v stop %v, want an error %q", s.Complete, s.Err, s.Stop, tt.err)
			}
			if !strings.Contains(s.Err.Message, tt.err) || s.Err.Status != tt.errStatus || s.Err.Code != tt.errCode {
				t.Errorf("error %+v, want status %d code %q and message containing %q", s.Err, tt.errStatus, tt.errCode, tt.err)
			}
			if tt.errStatus == 502 && s.Err.Kind != mapping.ErrBadGateway {
				t.Errorf("error kind %v, want bad gateway", s.Err.Kind)
			}
		})
	}
}

// TestGeminiStreamRecordingsCovered checks that the table above names every
// streaming recording, so that a new one is not silently left out.
func TestGeminiStreamRecordingsCovered(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	listed := map[string]bool{}
	for _, tt := range streamRecordingCases {
		listed[tt.file] = true
	}
	n := 0
	for _, dir := range []string{"gemini", "vertex"} {
		files, err := filepath.Glob(filepath.Join(codectest.RecordingsDir, dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := dir + "/" + filepath.Base(f)
			if !codectest.ReadRecording(t, name).Get("stream").Bool() {
				continue
			}
			n++
			if !listed[name] {
				t.Errorf("streaming recording %s is not in streamRecordingCases", name)
			}
		}
	}
	if n != len(streamRecordingCases) {
		t.Errorf("%d streaming recordings, %d cases", n, len(streamRecordingCases))
	}
}

// TestGeminiStreamTruncatedRecordings cuts every recording after each
// prefix (every byte for small ones; around every line end and at a stride
// for the big one) and closes the decoder, cleanly and with a broken
// connection: the output is always well formed, and the stream is complete
// exactly when the chunk with the finishReason (or blockReason) was read
// whole.
func TestGeminiStreamTruncatedRecordings(t *testing.T) {
	for _, tt := range streamRecordingCases {
		t.Run(tt.file, func(t *testing.T) {
			p := recordingProtocol(tt.file)
			body := streamBody(t, tt.file)
			// The chunk that finishes the stream has been read once the
			// line end after its JSON has arrived.
			marker := strings.Index(body, `"finishReason"`)
			if m := strings.Index(body, `"blockReason"`); marker < 0 || (m >= 0 && m < marker) {
				marker = m
			}
			lineEnd := len(body) + 1
			if marker >= 0 {
				lineEnd = marker + strings.IndexAny(body[marker:], "\r\n")
			}
			for _, n := range cutPoints(body) {
				for _, cause := range []error{nil, codectest.ErrTestBroken} {
					evs := decodeStream(t, p, body[:n], cause)
					codectest.CheckWellFormed(t, evs)
					s := codectest.Summarize(evs)
					if s.Complete && n <= lineEnd {
						t.Fatalf("cut at %d (cause %v): complete before the finishing chunk was read", n, cause)
					}
					if tt.err == "" && !s.Complete && n > lineEnd {
						t.Fatalf("cut at %d (cause %v): not complete after the finishing chunk: %v", n, cause, s.Err)
					}
					if !s.Complete && s.Err == nil {
						t.Fatalf("cut at %d: neither complete nor failed", n)
					}
				}
			}
		})
	}
}

// cutPoints returns the prefix lengths at which body is cut.
func cutPoints(body string) []int {
	var cuts []int
	if len(body) <= 8<<10 {
		for n := 0; n <= len(body); n++ {
			cuts = append(cuts, n)
		}
		return cuts
	}
	for n := 0; n <= len(body); n++ {
		near := n%97 == 0 || n == len(body)
		for d := -2; d <= 2 && !near; d++ {
			if i := n + d; i >= 0 && i < len(body) && (body[i] == '\n' || body[i] == '\r') {
				near = true
			}
		}
		if near {
			cuts = append(cuts, n)
		}
	}
	return cuts
}
