package chat

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestChatDecodeArgumentsLiteral checks how a Chat request's tool call
// arguments are kept: as their literal while they hold escapes that may be
// copied and need no trimming, else unescaped as before; and that what
// the decoder rejects it rejects with the same error either way.
func TestChatDecodeArgumentsLiteral(t *testing.T) {
	body := func(lit string) []byte {
		return []byte(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"` +
			lit + `"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`)
	}
	for _, c := range []struct {
		lit     string
		kept    bool
		args    string // ArgumentsValue
		invalid bool   // rejected: must be the text of a JSON object
	}{
		{lit: `{\"city\":\"Paris\"}`, kept: true, args: `{"city":"Paris"}`},
		{lit: `{\"q\":\"caf\u00e9 \/ \\\"x\\\"\"}`, kept: true, args: `{"q":"café / \"x\""}`},
		// Surrogate escapes are never copied; a pair is unescaped, a lone
		// one becomes U+FFFD as encoding/json reads it.
		{lit: `{\"e\":\"\ud83d\ude00\"}`, args: `{"e":"😀"}`},
		{lit: `{\"e\":\"\udc00\"}`, args: "{\"e\":\"\uFFFD\"}"},
		// Chat trims the arguments: trimmed ones are unescaped as before.
		{lit: `\n {\"a\":1}\t`, args: `{"a":1}`},
		{lit: `{}`, args: `{}`},
		{lit: ``, args: ``},
		{lit: `\n`, args: ``},
		{lit: `[\"a\"]`, invalid: true},
		{lit: `{\"a\":}`, invalid: true},
		{lit: `{\"a\":\"x\ny\"}`, invalid: true}, // a raw newline inside the object's string
	} {
		var req codec.Request
		err := codec.DecodeRequest(codec.OpenAIChat, body(c.lit), &req)
		if c.invalid {
			var e *codec.Error
			if err == nil || !errors.As(err, &e) || e.Param != "messages[1].tool_calls[0].function.arguments" || e.Status != 400 {
				t.Errorf("%s: err %v, want a 400 about the arguments", c.lit, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.lit, err)
			continue
		}
		p := &req.Messages[1].Parts[0]
		if _, escaped := p.EscapedArguments(); escaped != c.kept {
			t.Errorf("%s: kept escaped %v, want %v", c.lit, escaped, c.kept)
		}
		if got := p.ArgumentsValue(); got != c.args {
			t.Errorf("%s: ArgumentsValue %q, want %q", c.lit, got, c.args)
		}
	}
}
