package interactions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestResponseRoundTrip decodes an interaction and encodes it back.
func TestResponseRoundTrip(t *testing.T) {
	body := `{"id":"v1_a","model":"m","status":"requires_action","created":"2026-01-01T00:00:00Z","steps":[` +
		`{"type":"thought","signature":"c2ln","summary":[{"type":"text","text":"Hm."}]},` +
		`{"type":"model_output","content":[{"type":"text","text":"Let me check."}]},` +
		`{"type":"function_call","id":"c1","name":"w","arguments":{"city":"Paris"}}],` +
		`"usage":{"total_input_tokens":10,"total_output_tokens":4,"total_thought_tokens":6,"total_tokens":20}}`
	var resp codec.Response
	if err := codec.DecodeResponse(Gemini, []byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != mapping.StopToolUse || len(resp.Content) != 3 || resp.Content[0].Origin != mapping.FamilyGemini ||
		resp.Usage.OutputTokens != 10 || resp.Created != 1767225600 {
		t.Fatalf("%+v", resp)
	}
	out, err := codec.AppendResponse(nil, Gemini, &resp)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != body {
		t.Errorf("round trip\n got %s\nwant %s", out, body)
	}
}

// TestResponseStatuses checks the stop reason of each status, and that a
// failed or unfinished interaction is an error.
func TestResponseStatuses(t *testing.T) {
	for _, tt := range []struct {
		status, steps string
		want          mapping.StopReason
		errStatus     int
	}{
		{"completed", `{"type":"model_output","content":[{"type":"text","text":"a"}]}`, mapping.StopEnd, 0},
		{"completed", `{"type":"function_call","id":"c","name":"f","arguments":{}}`, mapping.StopToolUse, 0},
		{"incomplete", `{"type":"model_output","content":[{"type":"text","text":"a"}]}`, mapping.StopMaxTokens, 0},
		// Stopped at the per-request decode limit: to another family,
		// output cut short.
		{"requires_continuation", `{"type":"model_output","content":[{"type":"text","text":"a"}]}`, mapping.StopMaxTokens, 0},
		{"failed", ``, 0, 502},
		{"in_progress", ``, 0, 502},
	} {
		var resp codec.Response
		err := codec.DecodeResponse(Gemini, []byte(`{"id":"v1","status":"`+tt.status+`","steps":[`+tt.steps+`]}`), &resp)
		if tt.errStatus != 0 {
			if e, ok := err.(*codec.Error); !ok || e.Status != tt.errStatus {
				t.Errorf("%s: err %v, want %d", tt.status, err, tt.errStatus)
			}
			continue
		}
		if err != nil || resp.StopReason != tt.want {
			t.Errorf("%s %s: %v %v, want %v", tt.status, tt.steps, resp.StopReason, err, tt.want)
		}
	}
}

// TestForeignReasoningToClient checks that the opaque values an
// Interactions client cannot use as they are reach it as continuation
// tokens, which bring them back to their issuer: another family's
// signature, and a Gemini part kept whole (code execution), whose content
// must not show; a Gemini thought signature is the API's own and goes as
// it is.
func TestForeignReasoningToClient(t *testing.T) {
	for _, tt := range []struct {
		name, signature, text string
		origin                mapping.Family
		sealed                bool
	}{
		{"anthropic signature", "sig", "t", mapping.FamilyAnthropic, true},
		{"gemini part kept whole", `{"executableCode":{"language":"PYTHON","code":"print(2+2)"}}`, "", mapping.FamilyGemini, true},
		{"gemini thought signature", "c2lnbmVk", "", mapping.FamilyGemini, false},
	} {
		resp := codec.Response{StopReason: mapping.StopEnd, Content: []codec.Part{
			{Type: codec.PartReasoning, Text: tt.text, Signature: tt.signature, Origin: tt.origin}, {Type: codec.PartText, Text: "A"}}}
		out, err := codec.AppendResponse(nil, Gemini, &resp)
		if err != nil {
			t.Fatal(err)
		}
		sig := gjson.GetBytes(out, "steps.0.signature").Str
		if mapping.IsEnvelope(sig) != tt.sealed || strings.Contains(string(out), "print(") {
			t.Errorf("%s: the client got the signature %q (%s)", tt.name, sig, out)
		}
		var req codec.Request
		step, _ := sjson.Set(`{"type":"thought"}`, "signature", sig)
		body := `{"model":"m","input":[{"type":"user_input","content":"Q"},` + step + `,` +
			`{"type":"model_output","content":[{"type":"text","text":"A"}]},{"type":"user_input","content":"Go"}]}`
		if err := codec.DecodeRequest(Gemini, []byte(body), &req); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if p := req.Messages[1].Parts[0]; p.Signature != tt.signature || p.Origin != tt.origin || p.Text != tt.text {
			t.Errorf("%s: replayed %+v from %s", tt.name, p, out)
		}
	}
}

// TestErrorBody checks Google's error format both ways.
func TestErrorBody(t *testing.T) {
	e := codec.DecodeError(Gemini, 429, []byte(`{"error":{"code":"RESOURCE_EXHAUSTED","message":"quota"}}`))
	if e.Kind != mapping.ErrRateLimit || e.Message != "quota" {
		t.Errorf("%+v", e)
	}
	e = codec.DecodeError(Gemini, 400, []byte(`{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}`))
	if e.Kind != mapping.ErrInvalidRequest || e.Code != "INVALID_ARGUMENT" {
		t.Errorf("%+v", e)
	}
	// Google's format has no member for the field at fault: llmbridge's
	// own refusals name it in the message, an upstream's do not.
	for _, tt := range []struct {
		e    codec.Error
		want string
	}{
		{codec.Error{Status: 404, Kind: mapping.ErrNotFound, Message: "no such interaction"}, `{"error":{"code":"NOT_FOUND","message":"no such interaction"}}`},
		{codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "previous_interaction_id", Message: "expected a string"},
			`{"error":{"code":"INVALID_ARGUMENT","message":"previous_interaction_id: expected a string"}}`},
		{codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "input[0].type", Message: "input[0].type: is required"},
			`{"error":{"code":"INVALID_ARGUMENT","message":"input[0].type: is required"}}`},
		{codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "messages[0].role", Message: "bad role", Protocol: codec.OpenAIChat},
			`{"error":{"code":"INVALID_ARGUMENT","message":"bad role"}}`},
	} {
		if got := string(codec.AppendError(nil, Gemini, &tt.e)); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.e, got, tt.want)
		}
	}
}

// TestRefusalToClient checks a refusal toward an Interactions client,
// which has no refusal slot or status, JSON and streamed: its text, or the
// upstream's explanation when there is none, is the output; a refusal with
// neither is an error rather than a blank success.
func TestRefusalToClient(t *testing.T) {
	for _, tt := range []struct {
		name, text, explanation, want string
		err                           bool
	}{
		{"refusal text", "I can't help with that.", "", "I can't help with that.", false},
		{"explanation only", "", "Harmful request.", "Harmful request.", false},
		{"blank", "", "", "", true},
	} {
		resp := codec.Response{StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Explanation: tt.explanation}}
		if tt.text != "" {
			resp.Content = []codec.Part{{Type: codec.PartText, Text: tt.text}}
		}
		out, err := codec.AppendResponse(nil, Gemini, &resp)
		if got := gjson.GetBytes(out, "steps.0.content.0.text").Str; (err != nil) != tt.err || !tt.err && got != tt.want {
			t.Errorf("%s: %s (%v), want the output %q", tt.name, out, err, tt.want)
		}
		enc, _ := codec.NewStreamEncoder(Gemini, &codec.Request{Model: "m"})
		var s []byte
		evs := []codec.Event{{Type: codec.EventStart, ID: "v1_a", Model: "m"}}
		if tt.text != "" {
			evs = append(evs, codec.Event{Type: codec.EventPartStart, Part: codec.PartText}, codec.Event{Type: codec.EventPartDelta, Text: tt.text},
				codec.Event{Type: codec.EventPartStop})
		}
		evs = append(evs, codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Explanation: tt.explanation}},
			codec.Event{Type: codec.EventEnd})
		for i := range evs {
			s = enc.Encode(s, &evs[i])
		}
		stream := string(s)
		if tt.err != strings.Contains(stream, "event: error") || !tt.err && !strings.Contains(stream, jsonString(tt.want)) {
			t.Errorf("%s: stream %s", tt.name, stream)
		}
	}
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
