package conversations

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestInteractionInputSteps checks how a request's input becomes the
// steps that are stored and continued: a string or content objects are a
// user_input step, steps are themselves.
func TestInteractionInputSteps(t *testing.T) {
	for _, tt := range []struct{ input, want string }{
		{`"Hi"`, `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]}]`},
		{`{"type":"text","text":"Hi"}`, `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]}]`},
		{`{"type":"user_input","content":"Hi"}`, `[{"type":"user_input","content":"Hi"}]`},
		{`[{"type":"text","text":"a"},{"type":"image","uri":"u"},{"type":"function_result","call_id":"c","result":"r"},{"type":"text","text":"b"}]`,
			`[{"type":"user_input","content":[{"type":"text","text":"a"},{"type":"image","uri":"u"}]},{"type":"function_result","call_id":"c","result":"r"},` +
				`{"type":"user_input","content":[{"type":"text","text":"b"}]}]`},
		{`7`, `[]`},
	} {
		n := 0
		got := string(append(appendInputSteps([]byte{'['}, &n, gjson.Parse(tt.input)), ']'))
		if got != tt.want {
			t.Errorf("input %s\n got %s\nwant %s", tt.input, got, tt.want)
		}
	}
}

// TestStoredInteractionPath checks which paths name one interaction.
func TestStoredInteractionPath(t *testing.T) {
	for path, want := range map[string]string{
		"/v1beta/interactions/v1_abc":      "v1_abc",
		"/v1/interactions/msg_01X-y.z":     "msg_01X-y.z",
		"/v1alpha/interactions/a":          "a",
		"/v1beta/interactions":             "",
		"/v1beta/interactions/a/cancel":    "",
		"/v2/interactions/a":               "",
		"/v1beta/interactions/../../admin": "",
		"/v1beta/interactions/..":          "",
		"/v1beta/interactions/.hidden":     "",
	} {
		got := ""
		if m := storedInteractionPath.FindStringSubmatch(path); m != nil {
			got = m[2]
		}
		if got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}

// TestShortDuration checks the durations errors name.
func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Minute: "1h30m", 30 * time.Minute: "30m", 45 * time.Second: "45s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// TestFoldStreamCopiesDeltas checks that a stream is added up into the
// interaction it carried with every delta in memory of its own: the
// decoder reuses its buffer, and a part's first delta kept as it came
// would be overwritten by the next events (text garbled, arguments no
// longer JSON, the interaction not stored).
func TestFoldStreamCopiesDeltas(t *testing.T) {
	event := func(typ, rest string) string {
		return "event: " + typ + "\ndata: {\"event_type\":\"" + typ + "\"," + rest + "}\n\n"
	}
	for _, tt := range []struct{ name, steps, text, args string }{
		{"text then call", event("step.start", `"index":0,"step":{"type":"model_output"}`) +
			event("step.delta", `"index":0,"delta":{"type":"text","text":"Che"}`) +
			event("step.delta", `"index":0,"delta":{"type":"text","text":"cki\u006eg."}`) +
			event("step.stop", `"index":0`) +
			event("step.start", `"index":1,"step":{"type":"function_call","id":"c1","name":"f","arguments":{"city":"Paris"}}`) +
			event("step.stop", `"index":1`), "Checking.", `{"city":"Paris"}`},
		{"call in fragments", event("step.start", `"index":0,"step":{"type":"function_call","id":"c1","name":"f","arguments":{}}`) +
			event("step.delta", `"index":0,"delta":{"type":"arguments_delta","arguments":"{\"ci"}`) +
			event("step.delta", `"index":0,"delta":{"type":"arguments_delta","arguments":"ty\":\"Paris\"}"}`) +
			event("step.stop", `"index":0`), "", `{"city":"Paris"}`},
	} {
		stream := event("interaction.created", `"interaction":{"id":"v1_a","model":"m","status":"in_progress"}`) + tt.steps +
			event("interaction.completed", `"interaction":{"id":"v1_a","status":"requires_action","usage":{"total_input_tokens":120,"total_output_tokens":30}}`) +
			"data: [DONE]\n\n"
		resp, ok := foldStream([]byte(stream))
		if !ok {
			t.Errorf("%s: the stream did not complete", tt.name)
			continue
		}
		var text, args string
		for _, p := range resp.Content {
			text += p.Text
			args += p.Arguments
		}
		if text != tt.text || args != tt.args {
			t.Errorf("%s: text %q and arguments %q, want %q and %q", tt.name, text, args, tt.text, tt.args)
		}
	}
}

// TestStoredAnswer checks what GET answers of a stored interaction: its
// output steps, with include_input its request's input before them, never
// the steps of the interactions it continued nor the gateway's span; one
// stored without a span has all its steps.
func TestStoredAnswer(t *testing.T) {
	steps := `[{"type":"user_input","n":0},{"type":"model_output","n":1},{"type":"user_input","n":2},{"type":"model_output","n":3}]`
	for _, tt := range []struct {
		name, stored string
		include      bool
		want         string
	}{
		{"output", `{"id":"a","steps":` + steps + `,"llmbridge_span":{"input":2,"output":3}}`, false, `[3]`},
		{"with its input", `{"id":"a","steps":` + steps + `,"llmbridge_span":{"input":2,"output":3}}`, true, `[2,3]`},
		{"a first interaction", `{"id":"a","steps":` + steps + `,"llmbridge_span":{"input":0,"output":1}}`, true, `[0,1,2,3]`},
		{"no span", `{"id":"a","steps":` + steps + `}`, false, `[0,1,2,3]`},
		{"a span out of range", `{"id":"a","steps":` + steps + `,"llmbridge_span":{"input":0,"output":9}}`, false, `[0,1,2,3]`},
	} {
		got := gjson.ParseBytes(storedAnswer(gjson.Parse(tt.stored), tt.include))
		if n := got.Get("steps.#.n").Raw; n != tt.want || got.Get(storedSpan).Exists() || got.Get("id").Str != "a" {
			t.Errorf("%s: %s, want the steps %s and no span", tt.name, got.Raw, tt.want)
		}
	}
}

// TestInteractionRecorderBounds passes on an answer too large to keep, as
// it is, and unwraps to the client's writer.
func TestInteractionRecorderBounds(t *testing.T) {
	w := httptest.NewRecorder()
	kept := false
	rec := &Recorder{ResponseWriter: w, keep: func(*Recorder) { kept = true }}
	rec.Header().Set("Content-Type", "application/json")
	part := []byte(strings.Repeat("a", maxRecordedInteraction/2+1))
	for range 2 {
		if _, err := rec.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	rec.Finish()
	if kept || w.Body.Len() != 2*len(part) {
		t.Errorf("kept %v, passed on %d bytes of %d", kept, w.Body.Len(), 2*len(part))
	}
	if rec.Unwrap() != w {
		t.Error("Unwrap")
	}
	var m memoryBody
	if m.Close() != nil {
		t.Error("memoryBody.Close")
	}
}
