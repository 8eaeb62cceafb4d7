package responses

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
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

// TestCustomCallInputLiteral decodes custom tool calls whose input holds
// escapes of every kind: the arguments are {"input": input} as JSON,
// made from the client's literal where it may be copied (no surrogate
// escaped) and from the input unescaped otherwise.
func TestCustomCallInputLiteral(t *testing.T) {
	for _, tc := range []struct {
		name, literal, input string
		copied               bool
	}{
		{"a patch", `*** Begin Patch\n+x := \"y\"\n*** End Patch`, "*** Begin Patch\n+x := \"y\"\n*** End Patch", true},
		{"escapes encoding/json would not write", `a\/b \u00e9 \t`, "a/b é \t", true},
		{"a surrogate pair", `smile \ud83d\ude00`, "smile 😀", false},
		{"a lone surrogate", `bad \ud83d end`, "bad \ufffd end", false},
		{"no escape (the same bytes either way)", `plain`, "plain", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req codec.Request
			body := `{"model":"m","tools":[{"type":"custom","name":"patch"}],"input":[{"type":"custom_tool_call","call_id":"c1","name":"patch","input":"` + tc.literal + `"},{"type":"custom_tool_call_output","call_id":"c1","output":"ok"}]}`
			if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(body), &req); err != nil {
				t.Fatal(err)
			}
			args := req.Messages[0].Parts[0].ArgumentsValue()
			if !json.Valid([]byte(args)) || gjson.Get(args, "input").Str != tc.input {
				t.Errorf("arguments %s: input %q, want %q", args, gjson.Get(args, "input").Str, tc.input)
			}
			if copied := strings.Contains(args, tc.literal); copied != tc.copied {
				t.Errorf("arguments %s: the literal copied %v, want %v", args, copied, tc.copied)
			}
		})
	}
}

// BenchmarkCustomCallInput translates a Codex tool loop of twenty
// apply_patch calls (custom tool calls whose 2 KB inputs escape every
// newline and quote) toward Anthropic.
func BenchmarkCustomCallInput(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"model":"m","tools":[{"type":"custom","name":"apply_patch"}],"input":[{"role":"user","content":"Fix it."}`)
	patch := strings.Repeat(`+\tif err != nil {\n+\t\treturn fmt.Errorf(\"read: %w\", err)\n+\t}\n`, 30)
	for i := range 20 {
		fmt.Fprintf(&body, `,{"type":"custom_tool_call","call_id":"c%d","name":"apply_patch","input":"*** Begin Patch\n%s*** End Patch"},{"type":"custom_tool_call_output","call_id":"c%d","output":"Done."}`, i, patch, i)
	}
	body.WriteString(`]}`)
	in := []byte(body.String())
	var req codec.Request
	var out []byte
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		req.Reset()
		if err := codec.DecodeRequest(codec.OpenAIResponses, in, &req); err != nil {
			b.Fatal(err)
		}
		var err error
		if out, err = codec.AppendRequest(out[:0], codec.AnthropicMessages, &req, codec.EncodeOptions{Model: "claude-sonnet-4-5", DefaultMaxTokens: 1024}); err != nil {
			b.Fatal(err)
		}
	}
}
