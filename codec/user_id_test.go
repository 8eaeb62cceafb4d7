package codec_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

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
			got := string(wire.AppendOpenAIUser(nil, c.id))
			if got != `"`+c.want+`"` {
				t.Errorf("appendOpenAIUser(%d bytes) = %s, want %q", len(c.id), got, c.want)
			}
			if len(c.want) > wire.MaxOpenAIUser {
				t.Errorf("the sent id has %d bytes, over the bound", len(c.want))
			}
			body, err := json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "metadata": map[string]any{"user_id": c.id},
				"messages": []any{map[string]any{"role": "user", "content": "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			var req codec.Request
			if err := codec.DecodeRequest(codec.AnthropicMessages, body, &req); err != nil {
				t.Fatal(err)
			}
			if req.User != c.id {
				t.Fatalf("decoded user %q, want %q", req.User, c.id)
			}
			for _, p := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses} {
				out, err := codec.AppendRequest(nil, p, &req, codec.EncodeOptions{Model: "m"})
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
