package interactions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
)

// FuzzRequest decodes arbitrary create bodies and encodes what decodes
// toward every protocol: nothing panics, and every body written is JSON.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","input":"Hi"}`,
		`{"model":"m","input":[{"type":"user_input","content":"Weather?"},{"type":"thought","signature":"c2ln","summary":[{"type":"text","text":"hm"}]},` +
			`{"type":"function_call","id":"c1","name":"w","arguments":{"city":"Paris"}},{"type":"function_result","call_id":"c1","result":[{"type":"text","text":"sunny"}]}],` +
			`"tools":[{"type":"function","name":"w","parameters":{"type":"object"}}],"generation_config":{"thinking_level":"low","tool_choice":{"allowed_tools":{"mode":"any","tools":["w"]}}}}`,
		`{"model":"m","input":[{"type":"image","mime_type":"image/png","data":"iVBORw0KGgo="},{"type":"text","text":"What?"}],"response_format":{"type":"object"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<16 {
			return
		}
		var req codec.Request
		if codec.DecodeRequest(Gemini, body, &req) != nil {
			return
		}
		for _, to := range codec.Protocols() {
			r := req
			r.Dropped = append([]string(nil), req.Dropped...)
			out, err := codec.AppendRequest(nil, to, &r, codec.EncodeOptions{Model: "m"})
			if err == nil && !json.Valid(out) {
				t.Fatalf("to %s: invalid JSON %s", to, out)
			}
		}
	})
}

// FuzzStream decodes arbitrary streams and encodes the canonical events
// for every client: the events are well formed, and every data line the
// clients get is JSON or [DONE].
func FuzzStream(f *testing.F) {
	f.Add(sse(evCreated, evThought, evSummary, evSignature, evStop0, evOutput, evText, evStop1, evCall, evArgs, evStop2, evStatus, evCompleted, "[DONE]"))
	f.Add(sse(evCreated, evOutput, evText, evError))
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 1<<16 {
			return
		}
		evs := codectest.DecodeStream(t, Gemini, body, nil)
		if err := codectest.WellFormed(evs); err != nil {
			t.Fatalf("%v", err)
		}
		for _, to := range codec.Protocols() {
			out := codectest.EncodeStream(to, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, evs)
			for _, line := range strings.Split(out, "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok && d != "[DONE]" && !json.Valid([]byte(d)) {
					t.Fatalf("to %s: data line %q", to, line)
				}
			}
		}
	})
}
