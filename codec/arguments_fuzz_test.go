package codec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// Escape styles of argumentsLiteral, bits of its style argument: the ways
// clients write a JSON string beyond what encoding/json writes.
const (
	styleSlash         = 1 << iota // '/' as \/
	styleUnicode                   // every non-ASCII character as \u escapes (a surrogate pair above U+FFFF)
	styleUpperHex                  // \u escapes' hex digits in upper case
	styleControlU                  // control characters, quotes and backslashes as \u00XX
	styleLoneSurrogate             // a byte that is not UTF-8 as a lone surrogate escape (else raw)
)

// argumentsLiteral writes s as the body of a JSON string literal in the
// escape style given by style's bits.
func argumentsLiteral(s string, style uint8) string {
	var b strings.Builder
	hex := "%04x"
	if style&styleUpperHex != 0 {
		hex = "%04X"
	}
	u := func(r rune) { fmt.Fprintf(&b, `\u`+hex, r) }
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if style&styleLoneSurrogate != 0 {
				u(0xd800 + rune(s[i]))
			} else {
				b.WriteByte(s[i])
			}
		case r < 0x20 || r == '"' || r == '\\':
			if style&styleControlU != 0 {
				u(r)
			} else {
				body := jsonx.AppendStringBody(nil, string(r))
				b.Write(body)
			}
		case r == '/' && style&styleSlash != 0:
			b.WriteString(`\/`)
		case r >= 0x80 && style&styleUnicode != 0:
			if r > 0xffff {
				r -= 0x10000
				u(0xd800 + r>>10)
				u(0xdc00 + r&0x3ff)
			} else {
				u(r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// argumentsBodies are a Chat and a Responses request whose one tool call's
// arguments string has the literal lit.
func argumentsBodies(lit string) map[codec.Protocol][]byte {
	return map[codec.Protocol][]byte{
		codec.OpenAIChat: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"` +
			lit + `"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`),
		codec.OpenAIResponses: []byte(`{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"` + lit +
			`"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`),
	}
}

// surrogateEscape reports whether the literal lit escapes a UTF-16
// surrogate (\ud800 to \udfff), which a literal that is copied never
// does: a lone one unescapes to U+FFFD, a pair to a character an encoder
// writes raw.
func surrogateEscape(lit string) bool {
	for i := 0; i+5 < len(lit); i++ {
		if lit[i] == '\\' {
			if lit[i+1] == 'u' && (lit[i+2] == 'd' || lit[i+2] == 'D') && strings.ContainsRune("89abcdefABCDEF", rune(lit[i+3])) {
				return true
			}
			i++ // the escaped byte is not an escape's start
		}
	}
	return false
}

// FuzzArgumentsLiteral holds the arguments' literal path against
// unescaping them at decode and escaping them again: a Chat or Responses
// request whose tool call's arguments are args written in any escape
// style is decoded once, and translated to every protocol as it decoded
// (the literal copied, or unescaped straight into an object) and with its
// arguments unescaped and the literal forgotten. The two bodies are byte
// for byte the same where the literal is written as escaping writes it,
// and the same JSON otherwise; a copied literal escapes no surrogate, and
// the arguments read are the literal's text.
func FuzzArgumentsLiteral(f *testing.F) {
	for _, seed := range []struct {
		args  string
		style uint8
	}{
		{`{"city":"Paris"}`, 0},
		{`{"path":"src/a.go","text":"line\n\t\"quoted\" back\\slash"}`, styleSlash},
		{`{"q":"café 😀 \u2028"}`, styleUnicode},
		{`{"q":"café 😀"}`, styleUnicode | styleUpperHex | styleControlU},
		{"{\"bad\":\"\xff\xfe\"}", styleLoneSurrogate},
		{"{\"bad\":\"\xff\"}", 0},
		{" \n{\"a\":[1,2,{\"b\":null}]}\t", styleControlU},
		{`["not", "an object"]`, 0},
		{`{"a":"x` + "\n" + `y"}`, 0},
		{`{}`, 0},
		{``, 0},
		{strings.Repeat(`{"k":"v\"\\/"},`, 10), styleSlash | styleControlU},
	} {
		f.Add(seed.args, seed.style)
	}
	f.Fuzz(func(t *testing.T, args string, style uint8) {
		if len(args) > maxFuzzInput {
			return
		}
		lit := argumentsLiteral(args, style)
		for from, body := range argumentsBodies(lit) {
			for _, primed := range []bool{false, true} {
				checkArgumentsLiteral(t, from, body, primed)
			}
		}
	})
}

// primer is a request whose surrogate escapes are unescaped at decode:
// decoded first into a Request, it leaves the arena of the next decode
// into it room for every string (wire.KeepEscapedArguments then keeps
// arguments unescaped, with their literal).
var primer = []byte(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"` + strings.Repeat(`\ud83d\ude00`, 4096) + `"}]}`)

// checkArgumentsLiteral decodes body, a request of protocol from, into a
// fresh Request or (primed) one whose arena has room, and holds its
// translations to every protocol to those of the same request with its
// arguments unescaped and their literal forgotten.
func checkArgumentsLiteral(t *testing.T, from codec.Protocol, body []byte, primed bool) {
	var req, plain codec.Request
	if primed {
		if err := codec.DecodeRequest(codec.AnthropicMessages, primer, &req); err != nil {
			t.Fatal(err)
		}
		req.Reset()
	}
	if codec.DecodeRequest(from, body, &req) != nil {
		return
	}
	if err := codec.DecodeRequest(from, body, &plain); err != nil {
		t.Fatalf("%s: decodes once, then %v", from, err)
	}
	at := 1 // the assistant message of the Chat body
	if from == codec.OpenAIResponses {
		at = 0
	}
	call := req.Messages[at].Parts[0]
	kept, ok := call.JSONArguments()
	if _, escaped := call.EscapedArguments(); ok && escaped == primed {
		t.Fatalf("%s (primed %v): kept escaped %v", from, primed, escaped)
	}
	if ok {
		if surrogateEscape(kept) {
			t.Fatalf("%s: a literal that escapes a surrogate is kept: %s", from, kept)
		}
		var text string
		if err := json.Unmarshal([]byte(`"`+kept+`"`), &text); err != nil {
			t.Fatalf("%s: kept literal %s: %v", from, kept, err)
		}
		if got := call.ArgumentsValue(); got != text {
			t.Fatalf("%s: ArgumentsValue %q, the literal says %q", from, got, text)
		}
	}
	// The literal is written as escaping writes it: then every body must
	// be the same bytes.
	canonical := !ok || string(jsonx.AppendStringBody(nil, plainArguments(kept))) == kept
	eachPart(&plain, codec.ForgetArgumentsLiteral)
	for _, to := range codec.Protocols() {
		r, p := req, plain
		r.Dropped, p.Dropped = nil, nil
		r.Messages, p.Messages = cloneMessages(req.Messages), cloneMessages(plain.Messages)
		if to.ModelInPath() {
			r.Model, p.Model = "m", "m"
		}
		with, err := codec.AppendRequest(nil, to, &r, codec.EncodeOptions{})
		without, errPlain := codec.AppendRequest(nil, to, &p, codec.EncodeOptions{})
		if fmt.Sprint(err) != fmt.Sprint(errPlain) {
			t.Fatalf("%s to %s (primed %v): fails with %v, and unescaped with %v", from, to, primed, err, errPlain)
		}
		if err != nil {
			continue
		}
		if canonical && !bytes.Equal(with, without) {
			t.Fatalf("%s to %s (primed %v): with the literal\n%s\nunescaped\n%s", from, to, primed, with, without)
		}
		var a, b any
		if json.Unmarshal(with, &a) != nil || json.Unmarshal(without, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s to %s (primed %v): with the literal\n%s\nunescaped\n%s", from, to, primed, with, without)
		}
	}
}

// plainArguments returns the text of an arguments literal.
func plainArguments(lit string) string {
	var p codec.Part
	p.SetEscapedArguments(lit)
	return p.ArgumentsValue()
}

// cloneMessages copies msgs and their parts, so that an encoder's read of
// a part (which unescapes it in place) leaves the original as it was.
func cloneMessages(msgs []codec.Message) []codec.Message {
	out := make([]codec.Message, len(msgs))
	for i, m := range msgs {
		m.Parts = append([]codec.Part(nil), m.Parts...)
		out[i] = m
	}
	return out
}
