package responses

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestResponsesDecodeArgumentsLiteral checks how a Responses request's
// function_call arguments are kept: as their literal while they hold
// escapes that may be copied, else unescaped as before; and that what the
// decoder rejects it rejects with the same error either way. A custom
// call's input becomes arguments of its own making.
func TestResponsesDecodeArgumentsLiteral(t *testing.T) {
	body := func(lit string) []byte {
		return []byte(`{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"` + lit +
			`"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`)
	}
	for _, c := range []struct {
		lit     string
		kept    bool
		args    string // ArgumentsValue
		invalid bool   // rejected: must be a JSON object in a string
	}{
		{lit: `{\"cmd\":[\"ls\",\"-la\"]}`, kept: true, args: `{"cmd":["ls","-la"]}`},
		{lit: `{\"q\":\"caf\u00e9 \/ \\\"x\\\"\"}`, kept: true, args: `{"q":"café / \"x\""}`},
		// Responses keeps the whitespace around the object.
		{lit: `\n{\"a\":1} `, kept: true, args: "\n{\"a\":1} "},
		{lit: `{\"e\":\"\ud83d\ude00\"}`, args: `{"e":"😀"}`},
		{lit: `{\"e\":\"\ud800\"}`, args: "{\"e\":\"\uFFFD\"}"},
		{lit: `{}`, args: `{}`},
		{lit: ``, args: ``},
		{lit: `\n`, invalid: true},
		{lit: `[\"a\"]`, invalid: true},
		{lit: `{\"a\":\"x\ty\"}`, invalid: true}, // a raw tab inside the object's string
	} {
		var req codec.Request
		err := codec.DecodeRequest(codec.OpenAIResponses, body(c.lit), &req)
		if c.invalid {
			var e *codec.Error
			if err == nil || !errors.As(err, &e) || e.Param != "input[0].arguments" || e.Status != 400 {
				t.Errorf("%s: err %v, want a 400 about the arguments", c.lit, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.lit, err)
			continue
		}
		p := &req.Messages[0].Parts[0]
		if _, escaped := p.EscapedArguments(); escaped != c.kept {
			t.Errorf("%s: kept escaped %v, want %v", c.lit, escaped, c.kept)
		}
		if got := p.ArgumentsValue(); got != c.args {
			t.Errorf("%s: ArgumentsValue %q, want %q", c.lit, got, c.args)
		}
	}

	var req codec.Request
	err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"m","tools":[{"type":"custom","name":"patch"}],"input":[{"type":"custom_tool_call","call_id":"c1","name":"patch","input":"a\n\"b\""},{"type":"custom_tool_call_output","call_id":"c1","output":"ok"}]}`), &req)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Messages[0].Parts[0].ArgumentsValue(); got != `{"input":"a\n\"b\""}` {
		t.Errorf("custom call arguments %s", got)
	}
}
