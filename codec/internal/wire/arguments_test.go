package wire

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// argumentsValue returns the value of the member "arguments" of body, a
// JSON object, as a walk of it gives it.
func argumentsValue(t *testing.T, body string) jsonx.Value {
	t.Helper()
	x := jsonx.IndexDocument(body)
	if x == nil {
		t.Fatalf("invalid body %s", body)
	}
	a := jsonx.IndexedArena(x)
	for key, v := range jsonx.Members(body, &a) {
		if key == "arguments" {
			return v
		}
	}
	t.Fatalf("no arguments in %s", body)
	return jsonx.Value{}
}

// TestKeepEscapedArguments checks which arguments literals are kept: those
// with escapes that may be copied and whose text the protocol's test
// accepts, still escaped where the arena has no room for the text and
// unescaped into it where it has; never one that escapes a surrogate,
// holds invalid UTF-8 or has no escape (a view of the body needs no
// literal).
func TestKeepEscapedArguments(t *testing.T) {
	object := func(s string) bool { return jsonx.IsObject(s) }
	for _, c := range []struct {
		body string
		kept bool
		args string // ArgumentsValue when kept
	}{
		{`{"arguments":"{\"a\":\"b\\nc\"}"}`, true, `{"a":"b\nc"}`},
		{`{"arguments":"{\"a\":\"\u00e9\/\"}"}`, true, `{"a":"é/"}`},
		{`{"arguments":"{\"a\":\"\ud83d\ude00\"}"}`, false, ""},
		{`{"arguments":"{\"a\":\"\ud800\"}"}`, false, ""},
		{"{\"arguments\":\"{\\\"a\\\":\\\"\xff\\\"}\"}", false, ""},
		{`{"arguments":"[\"not an object\"]"}`, false, ""},
		{`{"arguments":"{\"broken\""}`, false, ""},
		{`{"arguments":"{}"}`, false, ""},
		{`{"arguments":{"a":1}}`, false, ""},
	} {
		for _, room := range []bool{false, true} {
			var a jsonx.Arena
			if room {
				a = jsonx.NewArena(4096)
				a.Unescape(`\n`) // allocates the buffer, with room to spare
			}
			var p codec.Part
			kept := KeepEscapedArguments(&p, argumentsValue(t, c.body), &a, object)
			if kept != c.kept {
				t.Errorf("%s (room %v): kept %v, want %v", c.body, room, kept, c.kept)
				continue
			}
			if !kept {
				if p.HasArguments() {
					t.Errorf("%s: not kept, yet the part has arguments %q", c.body, p.ArgumentsValue())
				}
				continue
			}
			if _, escaped := p.EscapedArguments(); escaped == room {
				t.Errorf("%s (room %v): escaped %v", c.body, room, escaped)
			}
			if lit, ok := p.JSONArguments(); !ok || `"`+lit+`"` != c.body[len(`{"arguments":`):len(c.body)-1] {
				t.Errorf("%s (room %v): JSONArguments %q %v", c.body, room, lit, ok)
			}
			if got := p.ArgumentsValue(); got != c.args {
				t.Errorf("%s (room %v): ArgumentsValue %q, want %q", c.body, room, got, c.args)
			}
		}
	}
}

// TestAppendArguments holds the encoders' writers of arguments to what
// each state of a part's arguments must give: as a string, the literal
// copied or the text escaped ("{}" for none); as an object, the text
// unescaped straight into the output or copied ("{}" for none or blank).
func TestAppendArguments(t *testing.T) {
	escaped := func(raw string) codec.Part {
		var p codec.Part
		p.SetEscapedArguments(raw)
		return p
	}
	read := func(raw string) codec.Part {
		p := escaped(raw)
		p.ArgumentsValue()
		return p
	}
	for _, c := range []struct {
		name           string
		part           codec.Part
		string, object string
		isObject       bool // ArgumentsObject with jsonx.IsObject
	}{
		{"none", codec.Part{}, `"{}"`, `{}`, false},
		{"blank", codec.Part{Arguments: "  "}, `"  "`, `{}`, false},
		{"written", codec.Part{Arguments: `{"a":"é"}`}, `"{\"a\":\"é\"}"`, `{"a":"é"}`, true},
		{"written, not an object", codec.Part{Arguments: `[1]`}, `"[1]"`, `[1]`, false},
		// The literal is copied as the client wrote it, \u00e9 and all.
		{"escaped", escaped(`{\"a\":\"\u00e9\\n\"}`), `"{\"a\":\"\u00e9\\n\"}"`, `{"a":"é\n"}`, true},
		{"read", read(`{\"a\":\"\u00e9\\n\"}`), `"{\"a\":\"\u00e9\\n\"}"`, `{"a":"é\n"}`, true},
	} {
		p := c.part
		if got := string(AppendArgumentsString([]byte("x"), &p)); got != "x"+c.string {
			t.Errorf("%s: AppendArgumentsString %s, want %s", c.name, got, c.string)
		}
		p = c.part
		if got := string(AppendArgumentsObject([]byte("x"), &p)); got != "x"+c.object {
			t.Errorf("%s: AppendArgumentsObject %s, want %s", c.name, got, c.object)
		}
		p = c.part
		_, wasEscaped := p.EscapedArguments()
		if got := ArgumentsObject(&p, jsonx.IsObject); got != c.isObject {
			t.Errorf("%s: ArgumentsObject %v, want %v", c.name, got, c.isObject)
		}
		// Checking arguments still escaped does not unescape them.
		if _, escaped := p.EscapedArguments(); escaped != wasEscaped {
			t.Errorf("%s: ArgumentsObject read the arguments", c.name)
		}
	}
}
