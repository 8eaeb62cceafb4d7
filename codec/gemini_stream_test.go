package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// geminiEventString renders an event compactly, for comparing decoded
// streams with what a test expects.
func geminiEventString(ev Event) string {
	switch ev.Type {
	case EventStart:
		s := fmt.Sprintf("start id=%q model=%q", ev.ID, ev.Model)
		if ev.Created != 0 {
			s += fmt.Sprintf(" created=%d", ev.Created)
		}
		return s
	case EventPartStart:
		if ev.Part == PartToolCall {
			return fmt.Sprintf("part_start %d call id=%q name=%q", ev.Index, ev.ToolCallID, ev.ToolName)
		}
		s := fmt.Sprintf("part_start %d type=%d", ev.Index, ev.Part)
		if ev.Redacted {
			s += " redacted"
		}
		if ev.ItemID != "" {
			s += fmt.Sprintf(" item=%q", ev.ItemID)
		}
		return s
	case EventPartDelta:
		return fmt.Sprintf("delta %d %q", ev.Index, ev.Text)
	case EventPartStop:
		if ev.Signature != "" || ev.Origin != mapping.FamilyNone {
			return fmt.Sprintf("part_stop %d sig=%q origin=%v", ev.Index, ev.Signature, ev.Origin)
		}
		return fmt.Sprintf("part_stop %d", ev.Index)
	case EventUsage:
		u := ev.Usage
		return fmt.Sprintf("usage in=%d cache_read=%d out=%d reasoning=%d", u.InputTokens, u.CacheReadTokens, u.OutputTokens, u.ReasoningTokens)
	case EventStop:
		if d := ev.StopDetails; d != (StopDetails{}) {
			return fmt.Sprintf("stop %v category=%q explanation=%q", ev.StopReason, d.Category, d.Explanation)
		}
		return "stop " + ev.StopReason.String()
	case EventEnd:
		return "end"
	case EventError:
		return fmt.Sprintf("error %d kind=%d code=%q: %s", ev.Err.Status, ev.Err.Kind, ev.Err.Code, ev.Err.Message)
	case EventDropped:
		return "dropped " + ev.Text
	}
	return "unknown"
}

// geminiEventStrings renders a decoded stream.
func geminiEventStrings(evs []Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = geminiEventString(ev)
	}
	return out
}

// geminiSSE frames JSON chunks as Google does: data: lines separated by
// "\r\n\r\n".
func geminiSSE(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		if strings.HasPrefix(c, "{") {
			b.WriteString("data: ")
		}
		b.WriteString(c)
		b.WriteString("\r\n\r\n")
	}
	return b.String()
}

// geminiStreamBody returns the response body of a streaming recording,
// skipping the test when recordings are absent.
func geminiStreamBody(t *testing.T, name string) string {
	t.Helper()
	return readRecording(t, name).Get("response.body").String()
}

// geminiStreamRecordingCases are the streaming recordings of the gemini
// and vertex directories and what a client must end up with after each.
var geminiStreamRecordingCases = []struct {
	file    string
	text    string
	stop    StopReason
	usage   Usage
	id      string
	model   string
	created string // Vertex createTime, RFC 3339
	// err is a substring of the message of the error that ends the
	// stream, "" when it completes; errStatus is its status.
	err       string
	errStatus int
	errCode   string
	// calls are the tool calls, with their arguments.
	calls []Part
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
		calls: []Part{
			{Type: PartToolCall, ToolCallID: "call_XQCzaYWvIqfRz7IPupTlyAk_0", ToolName: "add", Arguments: `{"b": 3,"a": 2}`},
			{Type: PartToolCall, ToolCallID: "call_XQCzaYWvIqfRz7IPupTlyAk_1", ToolName: "multiply", Arguments: `{"a": 2,"b": 3}`},
		}},
	{file: "gemini/gemini-2.5-pro-thinking-tool-call-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(54, 0, 0, 14, 64), id: "2ACzaf-8I9HRz7IPlMmB4Qk", model: "gemini-2.5-pro",
		calls: []Part{{Type: PartToolCall, ToolCallID: "call_2ACzaf-8I9HRz7IPlMmB4Qk_0", ToolName: "weather", Arguments: `{"location": "Florence, Italy"}`}}},
	{file: "gemini/gemini-3-pro-tool-call-signature-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(29, 0, 0, 10, 202), id: "QUVVadTSNJ6_qtsPvN7J8Q0", model: "gemini-3-pro-preview",
		calls: []Part{{Type: PartToolCall, ToolCallID: "call_QUVVadTSNJ6_qtsPvN7J8Q0_0", ToolName: "get_country", Arguments: `{}`}}},
	{file: "vertex/gemini-2.5-flash-tool-call-stream.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(28, 0, 0, 5, 51), id: "hwCzaaiDK5-Ew-UP4tT9sAY", model: "gemini-2.5-flash",
		created: "2026-03-12T18:05:59.704936Z",
		calls:   []Part{{Type: PartToolCall, ToolCallID: "call_hwCzaaiDK5-Ew-UP4tT9sAY_0", ToolName: "weather", Arguments: `{"location": "Florence,Italy"}`}}},
	// Vertex streamFunctionCallArguments: the arguments are put together
	// from the partialArgs and sent as one delta.
	{file: "vertex/gemini-3.1-pro-partial-args-nested-stream-reframed.json", stop: mapping.StopToolUse,
		usage: mapping.FromGeminiUsage(31, 0, 0, 684, 1026), id: "tjXVaYaxFISTq8YP_MWiyAo", model: "gemini-3.1-pro-preview",
		created: "2026-04-07T16:49:58.333958Z",
		calls:   []Part{{Type: PartToolCall, ToolCallID: "call_tjXVaYaxFISTq8YP_MWiyAo_0", ToolName: "cookRecipe", Arguments: geminiLasagna}}},
}

// geminiLasagna is the arguments object that the partialArgs of the
// partial-args recording put together.
const geminiLasagna = `{"recipe":{"ingredients":[` +
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

// geminiDecodeStream is decodeStream with the tool call ids and names of
// the events detached from the decoder's buffers too, which appendDetached
// does not copy.
func geminiDecodeStream(t *testing.T, p Protocol, body string, cause error) []Event {
	t.Helper()
	dec := streamDecoder(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out, buf []Event
	for {
		ev, err := r.Next()
		if err != nil {
			if err != io.EOF && cause == nil {
				cause = err
			}
			break
		}
		buf = dec.Decode(buf[:0], ev.Name, ev.Data, ev.Bare)
		out = geminiDetach(out, buf)
	}
	return geminiDetach(out, dec.Close(buf[:0], cause))
}

// geminiDetach appends copies of evs whose strings no longer alias the
// decoder's input.
func geminiDetach(out, evs []Event) []Event {
	n := len(out)
	out = appendDetached(out, evs)
	for i := n; i < len(out); i++ {
		out[i].ToolCallID = strings.Clone(out[i].ToolCallID)
		out[i].ToolName = strings.Clone(out[i].ToolName)
		out[i].Signature = strings.Clone(out[i].Signature)
		out[i].ItemID = strings.Clone(out[i].ItemID)
	}
	return out
}

// geminiStreamContent returns the text of the text parts of a decoded
// stream and its tool calls, with the arguments joined from their deltas;
// it checks that id and name come with the start only.
func geminiStreamContent(t *testing.T, evs []Event) (string, []Part) {
	t.Helper()
	var text strings.Builder
	var calls []Part
	kinds := map[int]PartType{}
	at := map[int]int{}
	for _, ev := range evs {
		switch ev.Type {
		case EventPartStart:
			kinds[ev.Index] = ev.Part
			if ev.Part == PartToolCall {
				at[ev.Index] = len(calls)
				calls = append(calls, Part{Type: PartToolCall, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName})
			}
		case EventPartDelta:
			if ev.ToolCallID != "" || ev.ToolName != "" {
				t.Errorf("delta %d repeats the call's id or name", ev.Index)
			}
			if kinds[ev.Index] == PartToolCall {
				if ev.Text == "" {
					t.Errorf("empty argument delta for part %d", ev.Index)
				}
				calls[at[ev.Index]].Arguments += ev.Text
			} else if kinds[ev.Index] == PartText {
				text.WriteString(ev.Text)
			}
		}
	}
	return text.String(), calls
}

// geminiRecordingProtocol returns the protocol of a recording file name.
func geminiRecordingProtocol(file string) Protocol {
	if strings.HasPrefix(file, "vertex/") {
		return Vertex
	}
	return Gemini
}

// TestGeminiStreamRecordings replays every streaming recording of the
// gemini and vertex directories through the decoder.
func TestGeminiStreamRecordings(t *testing.T) {
	for _, tt := range geminiStreamRecordingCases {
		t.Run(tt.file, func(t *testing.T) {
			p := geminiRecordingProtocol(tt.file)
			evs := geminiDecodeStream(t, p, geminiStreamBody(t, tt.file), nil)
			checkWellFormed(t, evs)
			s := summarize(evs)
			text, calls := geminiStreamContent(t, evs)
			if text != tt.text || s.Refusal != "" {
				t.Errorf("text %q refusal %q, want %q", text, s.Refusal, tt.text)
			}
			if !equalDecoded(calls, tt.calls) {
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
				if evs[0].Type != EventStart || evs[0].Created != want.Unix() {
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
	skipWithoutRecordings(t)
	listed := map[string]bool{}
	for _, tt := range geminiStreamRecordingCases {
		listed[tt.file] = true
	}
	n := 0
	for _, dir := range []string{"gemini", "vertex"} {
		files, err := filepath.Glob(filepath.Join(recordingsDir, dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := dir + "/" + filepath.Base(f)
			if !readRecording(t, name).Get("stream").Bool() {
				continue
			}
			n++
			if !listed[name] {
				t.Errorf("streaming recording %s is not in geminiStreamRecordingCases", name)
			}
		}
	}
	if n != len(geminiStreamRecordingCases) {
		t.Errorf("%d streaming recordings, %d cases", n, len(geminiStreamRecordingCases))
	}
}

// TestGeminiStreamTruncatedRecordings cuts every recording after each
// prefix (every byte for small ones; around every line end and at a stride
// for the big one) and closes the decoder, cleanly and with a broken
// connection: the output is always well formed, and the stream is complete
// exactly when the chunk with the finishReason (or blockReason) was read
// whole.
func TestGeminiStreamTruncatedRecordings(t *testing.T) {
	for _, tt := range geminiStreamRecordingCases {
		t.Run(tt.file, func(t *testing.T) {
			p := geminiRecordingProtocol(tt.file)
			body := geminiStreamBody(t, tt.file)
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
			for _, n := range geminiCutPoints(body) {
				for _, cause := range []error{nil, errTestBroken} {
					evs := geminiDecodeStream(t, p, body[:n], cause)
					checkWellFormed(t, evs)
					s := summarize(evs)
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

// geminiCutPoints returns the prefix lengths at which body is cut.
func geminiCutPoints(body string) []int {
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

// TestGeminiStreamDecode covers every kind of chunk and failure by hand.
func TestGeminiStreamDecode(t *testing.T) {
	const (
		head  = `"modelVersion":"gemini-2.5-flash","responseId":"r1"`
		start = `start id="r1" model="gemini-2.5-flash"`
	)
	text := func(s string) string {
		return `{"candidates":[{"content":{"parts":[{"text":` + s + `}],"role":"model"},"index":0}],` + head + `}`
	}
	finish := func(reason string) string {
		return `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"` + reason + `","index":0}],` + head + `}`
	}
	tests := []struct {
		name  string
		p     Protocol
		body  string
		cause error
		want  []string
	}{
		{
			name: "text with cumulative usage",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6},`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"lo\n"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8},`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "Hel"`, "usage in=5 cache_read=0 out=1 reasoning=0",
				`delta 0 "lo\n"`, "usage in=5 cache_read=0 out=3 reasoning=0", "part_stop 0", "stop end", "end"},
		},
		{
			name: "usage reported only when it changes, with every counter",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":50,"toolUsePromptTokenCount":5,"cachedContentTokenCount":20,"candidatesTokenCount":7,"thoughtsTokenCount":3,"totalTokenCount":65,"promptTokensDetails":[{"modality":"TEXT","tokenCount":50}]},`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":50,"toolUsePromptTokenCount":5,"cachedContentTokenCount":20,"candidatesTokenCount":7,"thoughtsTokenCount":3,"totalTokenCount":65},`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, "usage in=55 cache_read=20 out=10 reasoning=3",
				"part_stop 0", "stop end", "end"},
		},
		{
			name: "counts that are not plain integers",
			body: geminiSSE(`{"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1e1,"candidatesTokenCount":2.0,"thoughtsTokenCount":9007199254740992,"cachedContentTokenCount":999999999999999}}`),
			want: []string{`start id="" model=""`, "usage in=10 cache_read=999999999999999 out=9007199254740994 reasoning=9007199254740992", "stop end", "end"},
		},
		{
			name: "Vertex usage without counts is no usage; createTime",
			p:    Vertex,
			body: geminiSSE(
				`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND","promptTokenCount":null},"modelVersion":"gemini-2.5-flash","createTime":"2026-03-12T18:05:56.457623Z","responseId":"v1"}`,
				`{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2,"totalTokenCount":11,"trafficType":"ON_DEMAND"},"modelVersion":"gemini-2.5-flash","createTime":"2026-03-12T18:05:56.457623Z","responseId":"v1"}`),
			want: []string{`start id="v1" model="gemini-2.5-flash" created=1773338756`, "part_start 0 type=0", `delta 0 "Hi"`,
				`delta 0 "!"`, "usage in=9 cache_read=0 out=2 reasoning=0", "part_stop 0", "stop end", "end"},
		},
		{
			name: "escapes are unescaped",
			body: geminiSSE(text(`"line\n\"q\" \u00e9 \ud83d\ude00 \\ \/ \t"`), finish("STOP")),
			want: []string{start, "part_start 0 type=0", `delta 0 "line\n\"q\" é 😀 \\ / \t"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "thoughts are reasoning parts, closed by the signature after them",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"**Plan**\n","thought":true}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"more","thought":true}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"Answer","thoughtSignature":"c2ln","thought":false},{"text":"more thinking","thought":true},{"text":"","thoughtSignature":"c2lnMg=="},{"text":".","partMetadata":{}}],"role":"model"}}],`+head+`}`,
				finish("STOP")),
			want: []string{start, "part_start 0 type=7", `delta 0 "**Plan**\n"`, `delta 0 "more"`, `part_stop 0 sig="c2ln" origin=gemini`,
				"part_start 1 type=0", `delta 1 "Answer"`, "part_stop 1",
				"part_start 2 type=7", `delta 2 "more thinking"`, `part_stop 2 sig="c2lnMg==" origin=gemini`,
				"part_start 3 type=0", `delta 3 "."`, "part_stop 3", "stop end", "end"},
		},
		{
			name: "a signature after text, on a call, on a thought, and unsigned thoughts",
			body: geminiSSE(
				text(`"Hi"`),
				`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"YQ=="}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"Yg=="}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"t","thought":true,"thoughtSignature":"Yw=="},{"text":"u","thought":true},{"text":"","thought":true},{"text":"v"}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"w","thought":true}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"thoughtSignature":"ZA=="}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"x","thought":true}],"role":"model"}}],`+head+`}`,
				finish("STOP")),
			want: []string{start, "part_start 0 type=0", `delta 0 "Hi"`, "part_stop 0",
				"part_start 1 type=7", `part_stop 1 sig="YQ==" origin=gemini`,
				"part_start 2 type=7", `part_stop 2 sig="Yg==" origin=gemini`,
				`part_start 3 call id="call_r1_0" name="f"`, `delta 3 "{}"`, "part_stop 3",
				"part_start 4 type=7", `delta 4 "t"`, `part_stop 4 sig="Yw==" origin=gemini`,
				"part_start 5 type=7", `delta 5 "u"`, "part_stop 5",
				"part_start 6 type=0", `delta 6 "v"`, "part_stop 6",
				"part_start 7 type=7", `delta 7 "w"`, `part_stop 7 sig="ZA==" origin=gemini`,
				"part_start 8 type=7", `delta 8 "x"`, "part_stop 8",
				"stop tool_use", "end"},
		},
		{
			name: "finishReason on every chunk keeps one part; the last reason wins",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"First "}]},"finishReason":"STOP","index":0}]}`,
				`{"candidates":[{"content":{"parts":[{"text":"Second"}]},"finishReason":"MAX_TOKENS","index":0}]}`),
			want: []string{`start id="" model=""`, "part_start 0 type=0", `delta 0 "First "`, `delta 0 "Second"`,
				"part_stop 0", "stop max_tokens", "end"},
		},
		{
			name: "max tokens",
			body: geminiSSE(text(`"cut"`), finish("MAX_TOKENS")),
			want: []string{start, "part_start 0 type=0", `delta 0 "cut"`, "part_stop 0", "stop max_tokens", "end"},
		},
		{
			name: "safety with empty content",
			body: geminiSSE(text(`"Some"`), `{"candidates":[{"content":{},"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}],`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "Some"`, "part_stop 0", `stop content_filter category="SAFETY" explanation=""`, "end"},
		},
		{
			name: "model armor without content nor parts",
			p:    Vertex,
			body: geminiSSE(`{"candidates":[{"finishReason":"MODEL_ARMOR","finishMessage":"blocked"}],"usageMetadata":{"promptTokenCount":4,"totalTokenCount":4},` + head + `}`),
			want: []string{start, "usage in=4 cache_read=0 out=0 reasoning=0", `stop content_filter category="MODEL_ARMOR" explanation="blocked"`, "end"},
		},
		{
			name: "unknown finish reason",
			body: geminiSSE(text(`"x"`), finish("SOMETHING_NEW")),
			want: []string{start, "part_start 0 type=0", `delta 0 "x"`, "part_stop 0", "stop other", "end"},
		},
		{
			name: "null fields are absent",
			body: geminiSSE(
				`{"candidates":null,"usageMetadata":null,"promptFeedback":null,"error":null,"modelVersion":null,"responseId":null,"createTime":null}`,
				`{"candidates":[{"content":null,"finishReason":null,"index":null}]}`,
				`{"candidates":[{"content":{"parts":null}}]}`,
				`{"candidates":[{"content":{"parts":[{"text":null}]}}]}`,
				`{"candidates":[],"promptFeedback":{"blockReason":null}}`,
				`{"candidates":[{"finishReason":"STOP"}]}`),
			want: []string{`start id="" model=""`, "stop end", "end"},
		},
		{
			name: "prompt blocked",
			body: geminiSSE(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","safetyRatings":[]},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7},` + head + `}`),
			want: []string{start, "usage in=7 cache_read=0 out=0 reasoning=0", `stop content_filter category="PROHIBITED_CONTENT" explanation=""`, "end"},
		},
		{
			name: "prompt blocked with a message",
			p:    Vertex,
			body: geminiSSE(`{"promptFeedback":{"blockReason":"JAILBREAK","blockReasonMessage":"no"},` + head + `}`),
			want: []string{start, `stop content_filter category="JAILBREAK" explanation="no"`, "end"},
		},
		{
			name: "a filter stop after a STOP chunk; a STOP after a filter clears its details",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"SAFETY","finishMessage":"m","index":0}]}`,
				`{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP","finishMessage":"ignored","index":0}]}`),
			want: []string{`start id="" model=""`, "part_start 0 type=0", `delta 0 "a"`, `delta 0 "b"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "promptFeedback without blockReason finishes nothing",
			body: geminiSSE(`{"promptFeedback":{"safetyRatings":[]},` + head + `}`),
			want: []string{start, "error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "blockReason beside a candidate is ignored",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}],"promptFeedback":{"blockReason":"SAFETY"},` + head + `}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "ok"`, "error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "named events, comments, unknown fields ignored; LF framing; split data lines",
			body: ": keep-alive\n\nevent: ping\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ignored\"}]}}]}\n\n" +
				"event: message\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},\"avgLogprobs\":-0.1,\"citationMetadata\":{}}],\"modelStatus\":{},\"sdkHttpResponse\":{}," + head + "}\n\n" +
				"data: {\"candidates\":[{\"content\":\ndata: {\"parts\":[{\"text\":\"b\"}]},\ndata: \"finishReason\":\"STOP\"}]}\n\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, `delta 0 "b"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "pretty-printed chunk over several data lines; escaped keys",
			body: "data: {\ndata:   \"candidates\" :\t[ { \"content\" : { \"parts\" : [ { \"t\\u0065xt\" : \"a\" } , {\"text\":\"b\"} ] } ,\n" +
				"data: \"finishReason\" : \"STOP\" , \"index\" : 0 } ] ,\r\ndata: \"usageMetadata\" : { \"promptTokenCount\" : 3 , \"totalTokenCount\" : 3 } ,\n" +
				"data: \"responseId\" : \"r\\u0031\"\ndata: }\n\n",
			want: []string{`start id="r1" model=""`, "part_start 0 type=0", `delta 0 "a"`, `delta 0 "b"`, "usage in=3 cache_read=0 out=0 reasoning=0",
				"part_stop 0", "stop end", "end"},
		},
		{
			name: "data error chunk before anything",
			body: geminiSSE(`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`),
			want: []string{`error 429 kind=6 code="RESOURCE_EXHAUSTED": Resource has been exhausted (e.g. check quota).`},
		},
		{
			name: "bare pretty-printed error mid-stream",
			body: geminiSSE(text(`"Par"`)) + "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n\n" +
				geminiSSE(finish("STOP")),
			want: []string{start, "part_start 0 type=0", `delta 0 "Par"`, `error 503 kind=8 code="UNAVAILABLE": The model is overloaded.`},
		},
		{
			name: "bare error after the finishing chunk",
			body: geminiSSE(text(`"Done"`), finish("STOP")) + `{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}` + "\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "Done"`, `error 500 kind=0 code="INTERNAL": Internal error encountered.`},
		},
		{
			name: "error without code takes the status of its status",
			body: geminiSSE(`{"error":{"message":"slow down","status":"DEADLINE_EXCEEDED"}}`),
			want: []string{`error 504 kind=9 code="DEADLINE_EXCEEDED": slow down`},
		},
		{
			name: "error without code nor known status is a 500",
			body: geminiSSE(`{"error":{"code":"x","message":"odd","status":"WHATEVER"}}`),
			want: []string{`error 500 kind=0 code="WHATEVER": odd`},
		},
		{
			name: "error as a string",
			body: geminiSSE(`{"error":"something broke"}`),
			want: []string{`error 500 kind=0 code="": something broke`},
		},
		{
			name: "bare JSON that is not an error",
			body: geminiSSE(text(`"a"`)) + "{\"candidates\": []}\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, "error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds a block that is neither a data: event nor an error"},
		},
		{
			name: "bare block that is not JSON",
			body: "{ this is not json\n\n",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds a block that is neither a data: event nor an error"},
		},
		{
			name: "invalid JSON data",
			body: geminiSSE(text(`"a"`)) + "data: {\"candidates\":[\r\n\r\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, "error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not valid JSON"},
		},
		{
			name: "[DONE] is not Gemini",
			body: "data: [DONE]\r\n\r\n",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not valid JSON"},
		},
		{
			name: "JSON that is not an object",
			body: "data: [1,2]\r\n\r\n",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not a JSON object"},
		},
		{
			name: "object that is not a GenerateContentResponse",
			body: geminiSSE(`{"type":"message_start","message":{}}`),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not a GenerateContentResponse"},
		},
		{
			name: "Vertex errors name vertex",
			p:    Vertex,
			body: geminiSSE(`{"candidates":{}}`),
			want: []string{"error 502 kind=11 code=\"\": upstream vertex response is invalid: candidates is not an array"},
		},
		{
			name: "function call after text",
			body: geminiSSE(text(`"Let me check."`), `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"weather","args":{}}}],"role":"model"}}],`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "Let me check."`, "part_stop 0",
				`part_start 1 call id="call_r1_0" name="weather"`, `delta 1 "{}"`, "part_stop 1",
				"error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "a failing chunk contributes nothing but the error",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"dropped"},{"text":1}]}}],` + head + `}`),
			want: []string{`error 502 kind=11 code="": upstream gemini response is invalid: part text is not a string`},
		},
		{
			name: "two candidates",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"a"}]}},{"content":{"parts":[{"text":"b"}]},"index":1}]}`),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream chunk has more than one candidate"},
		},
		{
			name: "candidate index 1",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"b"}]},"index":1}]}`),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: candidate index is not 0, but only one candidate was asked for"},
		},
		{
			name:  "broken connection before the finish",
			body:  geminiSSE(text(`"a"`)),
			cause: errTestBroken,
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`,
				"error 502 kind=11 code=\"\": upstream gemini stream broke off before it was complete"},
		},
		{
			name:  "broken connection after the finish",
			body:  geminiSSE(text(`"a"`), finish("STOP")),
			cause: errTestBroken,
			want:  []string{start, "part_start 0 type=0", `delta 0 "a"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "cut in the middle of a line",
			body: geminiSSE(text(`"a"`)) + `data: {"candidates":[{"finishReason":"ST`,
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`,
				"error 502 kind=11 code=\"\": upstream gemini stream broke off before it was complete"},
		},
		{
			name: "empty body",
			body: "",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "empty vertex body",
			p:    Vertex,
			body: "\r\n",
			want: []string{"error 502 kind=11 code=\"\": upstream vertex stream ended before it was complete"},
		},
	}
	// Wrongly typed fields: each fails the stream with a 502 naming the
	// field.
	for _, bad := range []struct{ chunk, why string }{
		{`{"candidates":[1]}`, "candidates[0] is not an object"},
		{`{"candidates":[{"content":[]}]}`, "candidates[0].content is not an object"},
		{`{"candidates":[{"content":{"parts":{}}}]}`, "candidates[0].content.parts is not an array"},
		{`{"candidates":[{"content":{"parts":["a"]}}]}`, "candidates[0].content.parts has an element that is not an object"},
		{`{"candidates":[{"content":{"parts":[{"text":1}]}}]}`, "part text is not a string"},
		{`{"candidates":[{"finishReason":1}]}`, "finishReason is not a string"},
		{`{"usageMetadata":[]}`, "usageMetadata is not an object"},
		{`{"usageMetadata":{"promptTokenCount":"9"}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"usageMetadata":{"promptTokenCount":-1}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"usageMetadata":{"candidatesTokenCount":1.5}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"usageMetadata":{"thoughtsTokenCount":1e300}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"promptFeedback":"SAFETY"}`, "promptFeedback is not an object"},
		{`{"promptFeedback":{"blockReason":true}}`, "promptFeedback.blockReason is not a string"},
		{`{"promptFeedback":{"blockReason":"SAFETY","blockReasonMessage":1}}`, "promptFeedback.blockReasonMessage is not a string"},
		{`{"candidates":[{"finishReason":"SAFETY","finishMessage":1}]}`, "finishMessage is not a string"},
		{`{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":1}]}}]}`, "part thoughtSignature is not a string"},
		{`{"responseId":1}`, "responseId is not a string"},
		{`{"modelVersion":{}}`, "modelVersion is not a string"},
		{`{"createTime":0}`, "createTime is not a string"},
		{`{"createTime":"yesterday"}`, "createTime is not an RFC 3339 timestamp"},
	} {
		tests = append(tests, struct {
			name  string
			p     Protocol
			body  string
			cause error
			want  []string
		}{name: "wrong type: " + bad.why, body: geminiSSE(bad.chunk),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: " + bad.why}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			if p == "" {
				p = Gemini
			}
			evs := geminiDecodeStream(t, p, tt.body, tt.cause)
			checkWellFormed(t, evs)
			got := geminiEventStrings(evs)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestGeminiStreamDecoderTerminal checks that nothing follows a terminal
// event, whether it came from Decode or Close, and that the error of an
// event outlives the event's buffer.
func TestGeminiStreamDecoderTerminal(t *testing.T) {
	chunk := []byte(`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"}]}`)

	d := newGeminiStreamDecoder(Gemini)
	out := d.Decode(nil, nil, chunk, false)
	out = d.Close(out, nil)
	if n := len(out); n != 6 || out[n-1].Type != EventEnd {
		t.Fatalf("events %v", geminiEventStrings(out))
	}
	if again := d.Decode(nil, nil, chunk, false); len(again) != 0 {
		t.Errorf("Decode after the end appended %v", geminiEventStrings(again))
	}
	if again := d.Close(nil, errTestBroken); len(again) != 0 {
		t.Errorf("Close after the end appended %v", geminiEventStrings(again))
	}

	d = newGeminiStreamDecoder(Vertex)
	buf := []byte(`{"error":{"code":400,"message":"bad \"thing\"","status":"INVALID_ARGUMENT"}}`)
	out = d.Decode(nil, nil, buf, true)
	for i := range buf {
		buf[i] = 'x' // the reader reuses its buffer
	}
	if len(out) != 1 || out[0].Type != EventError {
		t.Fatalf("events %v", geminiEventStrings(out))
	}
	if e := out[0].Err; e.Message != `bad "thing"` || e.Code != "INVALID_ARGUMENT" || e.Status != 400 ||
		e.Kind != mapping.ErrInvalidRequest || e.Protocol != Vertex {
		t.Errorf("error %+v", e)
	}
	if again := d.Decode(nil, nil, chunk, false); len(again) != 0 {
		t.Errorf("Decode after an error appended %v", geminiEventStrings(again))
	}
	if again := d.Close(nil, nil); len(again) != 0 {
		t.Errorf("Close after an error appended %v", geminiEventStrings(again))
	}
}

// geminiTextEvents is a canonical stream of two text deltas.
func geminiTextEvents(stop StopReason, usage Usage) []Event {
	return []Event{
		{Type: EventStart, ID: "resp-1", Model: "gemini-2.5-flash"},
		{Type: EventPartStart, Index: 0, Part: PartText},
		{Type: EventPartDelta, Index: 0, Text: "Hello"},
		{Type: EventPartDelta, Index: 0, Text: ", \"world\"\n"},
		{Type: EventPartStop, Index: 0},
		{Type: EventStop, StopReason: stop},
		{Type: EventUsage, Usage: usage},
		{Type: EventEnd},
	}
}

// checkGeminiStreamGolden compares an encoded stream with
// testdata/gemini/stream_<name>.sse, byte for byte; with -update it
// rewrites the file instead.
func checkGeminiStreamGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "gemini", "stream_"+name+".sse")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codec -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n got: %q\nwant: %q", path, got, want)
	}
}

// geminiStreamEncodeCases are the encoder's golden cases.
var geminiStreamEncodeCases = []struct {
	name string
	req  *Request
	evs  []Event
}{
	{name: "text", req: &Request{Model: "client-model"},
		evs: geminiTextEvents(mapping.StopEnd, mapping.FromGeminiUsage(11, 0, 0, 5, 0))},
	{name: "refusal", req: &Request{},
		evs: []Event{
			{Type: EventStart, ID: "resp-2", Model: "gpt-4o"},
			{Type: EventPartStart, Index: 0, Part: PartRefusal},
			{Type: EventPartDelta, Index: 0, Text: "I can't help with that."},
			{Type: EventPartStop, Index: 0},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 20, OutputTokens: 7}},
			{Type: EventStop, StopReason: mapping.StopRefusal},
			{Type: EventEnd},
		}},
	{name: "max_tokens", req: &Request{},
		evs: geminiTextEvents(mapping.StopMaxTokens, mapping.FromGeminiUsage(11, 0, 0, 16, 0))},
	// Input usage known from the start (an Anthropic upstream): every
	// chunk repeats the latest usage, the final one the final usage.
	{name: "usage_before_stop", req: &Request{},
		evs: []Event{
			{Type: EventStart, ID: "msg_1", Model: "claude-sonnet-4", Usage: Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "One"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 4}},
			{Type: EventPartDelta, Index: 0, Text: " two"},
			{Type: EventPartStop, Index: 0},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 9}},
			{Type: EventStop, StopReason: mapping.StopSequence, StopSequence: "three"},
			{Type: EventEnd},
		}},
	// Usage known only at the end (a Chat upstream), after the stop, with
	// reasoning tokens; no model anywhere.
	{name: "usage_after_stop", req: &Request{},
		evs: []Event{
			{Type: EventStart, ID: "chatcmpl-1"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Fine."},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 12, CacheReadTokens: 4, OutputTokens: 40, ReasoningTokens: 32}},
			{Type: EventEnd},
		}},
	{name: "error_mid_stream", req: &Request{Model: "client-model"},
		evs: []Event{
			{Type: EventStart, ID: "msg_2"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Partial"},
			{Type: EventError, Err: &Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: AnthropicMessages}},
			{Type: EventPartStop, Index: 0},
			{Type: EventEnd},
		}},
	{name: "error_before_content", req: &Request{Model: "client-model"},
		evs: []Event{
			{Type: EventStart, ID: "resp-3"},
			{Type: EventError, Err: &Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Rate limit reached", Code: "rate_limit_exceeded", Protocol: OpenAIChat}},
		}},
	// No usage and no stop reason: no usageMetadata, finishReason STOP.
	{name: "no_usage", req: &Request{Model: "client-model"},
		evs: []Event{
			{Type: EventStart, ID: "resp-4"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "a"},
			{Type: EventPartStop, Index: 0},
			{Type: EventPartStart, Index: 1, Part: PartText},
			{Type: EventPartDelta, Index: 1, Text: "b"},
			{Type: EventPartStop, Index: 1},
			{Type: EventEnd},
		}},
	// Tool calls (an OpenAI upstream): argument fragments are buffered and
	// each call is one chunk with the complete args; a call without
	// fragments gets args {}; the text before them is a chunk of its own.
	{name: "tool_calls", req: &Request{Model: "client-model"},
		evs: []Event{
			{Type: EventStart, ID: "chatcmpl-9"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Checking."},
			{Type: EventPartStop, Index: 0},
			{Type: EventPartStart, Index: 1, Part: PartToolCall, ToolCallID: "call_a", ToolName: "weather"},
			{Type: EventPartDelta, Index: 1, Text: `{"location":`},
			{Type: EventPartDelta, Index: 1, Text: `"Paris"}`},
			{Type: EventPartStop, Index: 1},
			{Type: EventPartStart, Index: 2, Part: PartToolCall, ToolCallID: "call_b", ToolName: "now"},
			{Type: EventPartStop, Index: 2},
			{Type: EventStop, StopReason: mapping.StopToolUse},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 40, OutputTokens: 20}},
			{Type: EventEnd},
		}},
}

// TestGeminiStreamEncodeGolden checks the encoder's output byte for byte.
func TestGeminiStreamEncodeGolden(t *testing.T) {
	for _, tt := range geminiStreamEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []Protocol{Gemini, Vertex} {
				got := encodeStream(p, tt.req, tt.evs)
				checkGeminiStreamGolden(t, tt.name, got)
			}
		})
	}
}

// TestGeminiStreamEncoder covers what the golden files do not: generated
// ids, the request's model, events without a start, and that nothing
// follows a terminal event.
func TestGeminiStreamEncoder(t *testing.T) {
	t.Run("tool call arguments that are no object", func(t *testing.T) {
		got := encodeStream(Gemini, &Request{}, []Event{
			{Type: EventStart, ID: "r"},
			{Type: EventPartStart, Index: 0, Part: PartToolCall, ToolCallID: "call_a", ToolName: "weather"},
			{Type: EventPartDelta, Index: 0, Text: `[1]`},
			{Type: EventPartStop, Index: 0},
			{Type: EventEnd},
		})
		want := "data: {\"error\":{\"code\":502,\"message\":\"the upstream sent tool call arguments that are not a JSON object\",\"status\":\"INTERNAL\"}}\r\n\r\n"
		if got != want {
			t.Errorf("got %q", got)
		}
	})
	t.Run("generated id is stable; request model", func(t *testing.T) {
		got := encodeStream(Gemini, &Request{Model: "m-from-request"}, []Event{
			{Type: EventStart},
			{Type: EventPartStart, Part: PartText},
			{Type: EventPartDelta, Text: "a"},
			{Type: EventPartDelta, Text: ""},
			{Type: EventPartDelta, Text: "b"},
			{Type: EventPartStop},
			{Type: EventEnd},
			{Type: EventPartDelta, Text: "after the end"},
			{Type: EventError, Err: NewError(mapping.ErrAPI, "after the end")},
		})
		chunks := geminiGenaiChunks(t, got)
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
		got := encodeStream(Vertex, nil, []Event{
			{Type: EventPartDelta, Text: "x"},
			{Type: EventError},
			{Type: EventEnd},
		})
		want := `data: {"error":{"code":502,"message":"the upstream stream failed","status":"INTERNAL"}}` + "\r\n\r\n"
		if !strings.HasSuffix(got, want) || strings.Count(got, "data: ") != 2 || strings.Contains(got, "modelVersion") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("a second start changes nothing", func(t *testing.T) {
		enc := newGeminiStreamEncoder(&Request{})
		enc.Encode(nil, &Event{Type: EventStart, ID: "one", Model: "m1"})
		got := string(enc.Encode(nil, &Event{Type: EventStart, ID: "two", Model: "m2", Usage: Usage{Known: true}}))
		got += string(enc.Encode(nil, &Event{Type: EventPartDelta, Text: "t"}))
		if !strings.Contains(got, `"modelVersion":"m1","responseId":"one"`) || strings.Contains(got, "usageMetadata") {
			t.Errorf("got %q", got)
		}
	})
}

// geminiGenaiChunk is the part of genai's GenerateContentResponse the tests
// read.
type geminiGenaiChunk struct {
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

// geminiGenaiAPIError is genai's APIError.
type geminiGenaiAPIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// geminiGenaiScan is the split function of google.golang.org/genai v1.77.0
// (api_client.go, scan), which frames its streams: blocks end at the first
// "\n\n" in the buffer, else at the first "\r\n\r\n".
func geminiGenaiScan(data []byte, atEOF bool) (advance int, token []byte, err error) {
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

// geminiGenaiRead reads a stream as genai v1.77.0's iterateResponseStream
// does (the package is not a dependency of this module): each block is cut
// at its first colon; a "data" block is a response unless its object has
// an "error" member, which is returned as an APIError; any other block is
// an error. It returns the responses and the first error.
func geminiGenaiRead(t *testing.T, body string) ([]geminiGenaiChunk, *geminiGenaiAPIError) {
	t.Helper()
	var chunks []geminiGenaiChunk
	data := []byte(body)
	for len(data) > 0 {
		adv, block, _ := geminiGenaiScan(data, true)
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
				Error *geminiGenaiAPIError `json:"error"`
			}
			if err := json.Unmarshal(payload, &e); err == nil && e.Error != nil {
				return chunks, e.Error
			}
		}
		var c geminiGenaiChunk
		if err := json.Unmarshal(payload, &c); err != nil {
			t.Fatalf("genai cannot convert %q: %v", payload, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

// geminiGenaiChunks reads a stream that must not fail.
func geminiGenaiChunks(t *testing.T, body string) []geminiGenaiChunk {
	t.Helper()
	chunks, apiErr := geminiGenaiRead(t, body)
	if apiErr != nil {
		t.Fatalf("unexpected error %+v", apiErr)
	}
	return chunks
}

// TestGeminiStreamEncodeGenaiFraming reads the golden streams as genai
// does: text, finish reason, usage and errors come out as the canonical
// events said.
func TestGeminiStreamEncodeGenaiFraming(t *testing.T) {
	for _, tt := range geminiStreamEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			want := summarize(geminiUntilTerminal(tt.evs))
			want.Text, _ = geminiStreamContent(t, tt.evs)
			_, wantCalls := geminiStreamContent(t, tt.evs)
			body := encodeStream(Gemini, tt.req, tt.evs)
			chunks, apiErr := geminiGenaiRead(t, body)
			var text, finish string
			var calls []Part
			for i, c := range chunks {
				if len(c.Candidates) != 1 || c.Candidates[0].Content == nil || c.Candidates[0].Content.Role != "model" {
					t.Fatalf("chunk %d: %+v", i, c)
				}
				for _, p := range c.Candidates[0].Content.Parts {
					text += p.Text
					if f := p.FunctionCall; f != nil {
						args, _ := json.Marshal(f.Args)
						calls = append(calls, Part{Type: PartToolCall, ToolCallID: f.ID, ToolName: f.Name, Arguments: string(args)})
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
			if !equalDecoded(calls, wantCalls) {
				t.Errorf("calls %+v, want %+v", calls, wantCalls)
			}
			if want.Err != nil {
				if apiErr == nil || apiErr.Code != ClientStatus(Gemini, want.Err) || apiErr.Message != want.Err.Message || apiErr.Status == "" {
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

// TestGeminiStreamRoundTrip encodes canonical streams for a Gemini client
// and decodes the result as a Gemini upstream: the client ends up with the
// same text, stop reason, usage, id, model and error, except where Gemini
// has no way to say it (refusals are text and a SAFETY stop, a stop
// sequence is STOP, cache writes are not counted).
func TestGeminiStreamRoundTrip(t *testing.T) {
	for _, tt := range geminiStreamEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []Protocol{Gemini, Vertex} {
				body := encodeStream(p, tt.req, tt.evs)
				evs := geminiDecodeStream(t, p, body, nil)
				checkWellFormed(t, evs)
				got, want := summarize(evs), summarize(geminiUntilTerminal(tt.evs))
				var gotCalls, wantCalls []Part
				got.Text, gotCalls = geminiStreamContent(t, evs)
				want.Text, wantCalls = geminiStreamContent(t, geminiUntilTerminal(tt.evs))
				for i := range wantCalls {
					if wantCalls[i].Arguments == "" {
						wantCalls[i].Arguments = "{}" // Gemini sends args {}
					}
				}
				if !equalDecoded(gotCalls, wantCalls) {
					t.Errorf("%s: calls %+v, want %+v", p, gotCalls, wantCalls)
				}
				if !strings.Contains(body, `"responseId"`) {
					// The stream failed before any chunk: the client
					// never saw an id or a model.
					want.ID, want.Model = "", ""
				}
				want.Text += want.Refusal
				want.Refusal = ""
				want.StopSeq = ""
				switch want.Stop {
				case mapping.StopRefusal:
					want.Stop = mapping.StopContentFilter
				case mapping.StopSequence, mapping.StopNone:
					want.Stop = mapping.StopEnd
				}
				if want.Model == "" && want.ID != "" && tt.req != nil {
					want.Model = tt.req.Model
				}
				if want.Err != nil {
					want.Stop = mapping.StopNone
					e := *want.Err
					e.Status = ClientStatus(p, &e)
					e.Code = mapping.GoogleStatus(want.Err.Kind, e.Status)
					e.Param = ""
					e.Protocol = p
					if got.Err == nil || *got.Err != e {
						t.Errorf("%s: error %+v, want %+v", p, got.Err, e)
					}
					got.Err, want.Err = nil, nil
				}
				// A call without argument fragments comes back as {}.
				want.Tools = strings.ReplaceAll(want.Tools, " ;", " {};")
				if got != want {
					t.Errorf("%s: got %+v\nwant %+v", p, got, want)
				}
			}
		})
	}
}

// geminiUntilTerminal returns evs up to and including the first terminal
// event: what a client sees, since encoders write nothing after it.
func geminiUntilTerminal(evs []Event) []Event {
	for i, ev := range evs {
		if ev.Type == EventEnd || ev.Type == EventError {
			return evs[:i+1]
		}
	}
	return evs
}

// TestGeminiStreamAllocs checks the steady state of the hot path: a text
// delta costs no allocation to decode or to encode.
func TestGeminiStreamAllocs(t *testing.T) {
	a, b := geminiBenchChunks()
	d := newGeminiStreamDecoder(Gemini)
	out := d.Decode(nil, nil, a, false)
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		i++
		data := a
		if i%2 == 1 {
			data = b
		}
		out = d.Decode(out[:0], nil, data, false)
		if len(out) != 2 {
			t.Fatalf("events %v", geminiEventStrings(out))
		}
	}); n != 0 {
		t.Errorf("decode: %v allocations per delta", n)
	}
	enc := newGeminiStreamEncoder(&Request{Model: "m"})
	dst := enc.Encode(nil, &Event{Type: EventStart, ID: "id", Usage: Usage{Known: true, InputTokens: 9}})
	ev := Event{Type: EventPartDelta, Text: geminiBenchText}
	dst = enc.Encode(dst[:0], &ev)
	if n := testing.AllocsPerRun(100, func() { dst = enc.Encode(dst[:0], &ev) }); n != 0 {
		t.Errorf("encode: %v allocations per delta", n)
	}
}

const geminiBenchText = "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."

// geminiBenchChunks returns two realistic consecutive text chunks (usage
// changes on each, as it does upstream).
func geminiBenchChunks() (a, b []byte) {
	chunk := func(n int) []byte {
		return []byte(`{"candidates": [{"content": {"parts": [{"text": "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": ` +
			fmt.Sprint(n) + `,"totalTokenCount": 40,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}],"thoughtsTokenCount": 21},"modelVersion": "gemini-2.5-flash","responseId": "VwCzabneCuzPz7IP0aL64A0"}`)
	}
	return chunk(10), chunk(11)
}

func BenchmarkGeminiStreamDecodeDelta(b *testing.B) {
	x, y := geminiBenchChunks()
	d := newGeminiStreamDecoder(Gemini)
	out := d.Decode(nil, nil, x, false)
	b.ReportAllocs()
	b.SetBytes(int64(len(x)))
	for i := 0; b.Loop(); i++ {
		data := x
		if i%2 == 0 {
			data = y
		}
		out = d.Decode(out[:0], nil, data, false)
	}
}

func BenchmarkGeminiStreamEncodeDelta(b *testing.B) {
	enc := newGeminiStreamEncoder(&Request{Model: "gemini-2.5-flash"})
	dst := enc.Encode(nil, &Event{Type: EventStart, ID: "VwCzabneCuzPz7IP0aL64A0"})
	enc.Encode(nil, &Event{Type: EventUsage, Usage: mapping.FromGeminiUsage(9, 0, 0, 10, 21)})
	ev := Event{Type: EventPartDelta, Text: geminiBenchText}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}

// TestGeminiStreamFunctionCalls covers the function call paths of the
// decoder: several calls in one chunk, ids given or synthesised, streamed
// arguments of every value kind, and the malformed variants.
func TestGeminiStreamFunctionCalls(t *testing.T) {
	parts := func(p ...string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(p, ",") + `]}}],"responseId":"r.1"}`
	}
	fin := `{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}`
	start := `start id="r.1" model=""`
	partial := func(path, value string, more bool) string {
		c := ""
		if more {
			c = `,"willContinue":true`
		}
		return `{"functionCall":{"partialArgs":[{"jsonPath":"` + path + `",` + value + c + `}],"willContinue":true}}`
	}
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"two calls in one chunk, one with id",
			[]string{parts(`{"functionCall":{"name":"a","args":{"x":1}}}`, `{"functionCall":{"id":"given","name":"b"}}`), fin},
			[]string{start, `part_start 0 call id="call_r1_0" name="a"`, `delta 0 "{\"x\":1}"`, "part_stop 0",
				`part_start 1 call id="given" name="b"`, "part_stop 1", "stop tool_use", "end"}},
		{"streamed arguments of every kind",
			[]string{
				parts(`{"functionCall":{"name":"f","willContinue":true}}`),
				parts(partial("$.s", `"stringValue":"a\"b"`, true)),
				parts(partial("$.s", `"stringValue":"c"`, false)),
				parts(`{"functionCall":{"partialArgs":[{"jsonPath":"$.n","numberValue":1.5},{"jsonPath":"$.t","boolValue":true},{"jsonPath":"$.f","boolValue":false},{"jsonPath":"$.z","nullValue":null}],"willContinue":true}}`),
				parts(partial("$['odd key'].list[1]", `"numberValue":2`, false)),
				parts(partial(`$[\"q\"][0][0]`, `"stringValue":"x"`, false)),
				parts(partial("$.s", `"stringValue":"new"`, false)),
				parts(`{"functionCall":{"willContinue":true}}`),
				`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`,
			},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
				`delta 0 "{\"s\":\"new\",\"n\":1.5,\"t\":true,\"f\":false,\"z\":null,\"odd key\":{\"list\":[null,2]},\"q\":[[\"x\"]]}"`,
				"part_stop 0", "stop tool_use", "end"}},
		{"streamed call without arguments",
			[]string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), parts(`{"functionCall":{"willContinue":false}}`), fin},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`, "part_stop 0", "stop tool_use", "end"}},
		{"stream ends inside streamed arguments",
			[]string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), fin},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
				`error 502 kind=11 code="": upstream gemini response is invalid: stream ended inside a function call whose arguments were still streaming`}},
	}
	for _, bad := range []struct{ part, why string }{
		{`{"functionCall":1}`, "functionCall is not an object"},
		{`{"functionCall":{"name":1}}`, "functionCall.name is not a string"},
		{`{"functionCall":{"name":"f","id":1}}`, "functionCall.id is not a string"},
		{`{"functionCall":{"name":"f","args":[]}}`, "functionCall.args is not an object"},
		{`{"functionCall":{"name":"f","partialArgs":{}}}`, "functionCall.partialArgs is not an array"},
		{`{"functionCall":{"args":{}}}`, "functionCall has no name"},
		{`{"functionCall":{"name":"f","args":{},"willContinue":true}}`, "functionCall has both args and willContinue"},
		{`{"functionCall":{"name":"f","partialArgs":[1]}}`, "functionCall.partialArgs has an element that is not an object"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"x","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$x","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$['a","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$[x]","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":1}]}}`, "a partialArgs stringValue is not a string"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","numberValue":"1"}]}}`, "a partialArgs numberValue is not a number"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","boolValue":1}]}}`, "a partialArgs boolValue is not a boolean"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a"}]}}`, "a partialArgs element has no value"},
	} {
		tests = append(tests, struct {
			name   string
			chunks []string
			want   []string
		}{"bad: " + bad.why, []string{parts(bad.part)}, []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: " + bad.why}})
	}
	tests = append(tests, struct {
		name   string
		chunks []string
		want   []string
	}{"text inside streamed arguments", []string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), parts(`{"text":"hi"}`)},
		[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
			"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds text inside a function call whose arguments are still streaming"}},
		struct {
			name   string
			chunks []string
			want   []string
		}{"new call inside streamed arguments", []string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), parts(`{"functionCall":{"name":"g"}}`)},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
				"error 502 kind=11 code=\"\": upstream gemini response is invalid: functionCall starts before the previous call's streamed arguments ended"}},
		struct {
			name   string
			chunks []string
			want   []string
		}{"signature inside streamed arguments", []string{parts(`{"functionCall":{"name":"f","willContinue":true},"thoughtSignature":"c2ln"}`), parts(`{"functionCall":{},"thoughtSignature":"c2ln"}`)},
			[]string{start, "part_start 0 type=7", `part_stop 0 sig="c2ln" origin=gemini`, `part_start 1 call id="call_r1_0" name="f"`,
				"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds a thoughtSignature inside a function call whose arguments are still streaming"}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := geminiDecodeStream(t, Gemini, geminiSSE(tt.chunks...), nil)
			checkWellFormed(t, evs)
			got := strings.Join(geminiEventStrings(evs), "\n")
			if want := strings.Join(tt.want, "\n"); got != want {
				t.Errorf("events:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
