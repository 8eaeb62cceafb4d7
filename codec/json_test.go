package codec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// checkAppendString fails unless appendString(s) is valid JSON that decodes
// to what encoding/json's own encoding of s decodes to.
func checkAppendString(t testing.TB, s string) {
	got := appendString(nil, s)
	var back string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("appendString(%q) = %s: %v", s, got, err)
	}
	want, _ := json.Marshal(s)
	var wantBack string
	_ = json.Unmarshal(want, &wantBack)
	if back != wantBack {
		t.Fatalf("appendString(%q) decodes to %q, want %q", s, back, wantBack)
	}
	if strings.ContainsAny(string(got), "\u2028\u2029") {
		t.Fatalf("appendString(%q) = %s keeps a line separator", s, got)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\n\r\t\b\f\x00\x1f", "é€😀", "\u2028\u2029", "bad \xff\xfe utf8",
		strings.Repeat("12345678", 5) + "\"" + strings.Repeat("x", 9), "\x7f\x80", "ends with \\"} {
		checkAppendString(t, s)
	}
	// Every byte in every position of an 8-byte word.
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 17; pos++ {
			b := []byte(strings.Repeat("a", 17))
			b[pos] = byte(c)
			checkAppendString(t, string(b))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		checkAppendString(t, string(b))
	}
	// Long strings take the 64-byte block path when they are valid UTF-8:
	// mostly plain text with specials and runes at every offset.
	pieces := []string{"\"", "\\", "\n", "\x01", "\x1f", "é", "€", "😀", "\u2028", "\xff"}
	for range 20000 {
		b := appendRandomText(make([]byte, 0, 300), r, r.IntN(300), pieces, 8)
		checkAppendString(t, string(b))
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain text")
	f.Add("\"\\\n\x00\xff\u2028")
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("some words of a conversation, ", 8) + "\n\"quoted\" and more.\n"
	dst := make([]byte, 0, 4096)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = appendString(dst[:0], s)
	}
}

func TestCheckBase64(t *testing.T) {
	for _, ok := range []string{"", "QQ==", "QUI=", "QUJD", "QUJDRA", "a-_b", "iVBORw0KGgo="} {
		if err := checkBase64("p", ok); err != nil {
			t.Errorf("checkBase64(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"!!not*base64~~", "QUJDR", "Q===", "QQ=", "a b c d", "QUJD\n", "QQ==QQ=="} {
		if err := checkBase64("p", bad); err == nil || err.Param != "p" {
			t.Errorf("checkBase64(%q) = %v, want a 400 about p", bad, err)
		}
	}
}

func TestCompactJSON(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"a\": [1, 2],\r\n\t\"b\": \"x y\\n\\\" z\"\n}": `{"a":[1,2],"b":"x y\n\" z"}`,
		`{}`:             `{}`,
		`{"k":"\\"}`:     `{"k":"\\"}`,
		` { "s" : " " }`: `{"s":" "}`,
	} {
		if got := string(compactJSON([]byte(in))); got != want {
			t.Errorf("compactJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAppendOpenAIUser checks both sides of OpenAI's bound on the user
// field: an id of up to 64 bytes is sent as it is, a longer one as the
// 64-hex-digit SHA-256 of itself (the same id always gives the same hash),
// through the Chat and Responses request encoders from an Anthropic
// client's metadata.user_id.
func TestAppendOpenAIUser(t *testing.T) {
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:])
	}
	id64 := strings.Repeat("u", 63) + "9"
	id65 := id64 + "x"
	claudeCode := `{"device_id":"` + strings.Repeat("a", 64) + `","session_id":"s"}`
	multibyte := strings.Repeat("é", 33) // 33 characters, 66 bytes
	cases := []struct {
		name, id, want string
	}{
		{"short id", "user-42", "user-42"},
		{"64 bytes, the bound", id64, id64},
		{"65 bytes, one over", id65, hash(id65)},
		{"Claude Code's JSON user_id", claudeCode, hash(claudeCode)},
		{"over 64 bytes in fewer characters", multibyte, hash(multibyte)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(appendOpenAIUser(nil, c.id))
			if got != `"`+c.want+`"` {
				t.Errorf("appendOpenAIUser(%d bytes) = %s, want %q", len(c.id), got, c.want)
			}
			if len(c.want) > maxOpenAIUser {
				t.Errorf("the sent id has %d bytes, over the bound", len(c.want))
			}
			body, err := json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "metadata": map[string]any{"user_id": c.id},
				"messages": []any{map[string]any{"role": "user", "content": "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			var req Request
			if err := DecodeRequest(AnthropicMessages, body, &req); err != nil {
				t.Fatal(err)
			}
			if req.User != c.id {
				t.Fatalf("decoded user %q, want %q", req.User, c.id)
			}
			for _, p := range []Protocol{OpenAIChat, OpenAIResponses} {
				out, err := AppendRequest(nil, p, &req, EncodeOptions{Model: "m"})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if got := gjson.GetBytes(out, "user").Str; got != c.want {
					t.Errorf("%s: user %q, want %q", p, got, c.want)
				}
			}
		})
	}
}
