package codec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

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
