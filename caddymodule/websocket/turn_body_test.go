package websocket

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestAppendTurnBody holds the HTTP body made of a response.create event
// to what it must say: its members but type and the transport fields,
// stream true, and, when the turn continues the connection's last
// response, input continued from the conversation without
// previous_response_id. An event whose top level is malformed is copied
// as gjson reads it, as before the skim, so that the codec answers it.
func TestAppendTurnBody(t *testing.T) {
	conversation := []byte(`[{"type":"message","role":"user","content":"before"}]`)
	for _, c := range []struct {
		name, frame string
		expand      bool
		want        string
	}{
		{"members copied", `{"type":"response.create","model":"m","stream":false,"generate":true,"background":false,"input":"hi","k\"ey":{"a":[1]}}`, false,
			`{"stream":true,"model":"m","input":"hi","k\"ey":{"a":[1]}}`},
		{"previous kept", `{"type":"response.create","previous_response_id":"r1","input":[]}`, false,
			`{"stream":true,"previous_response_id":"r1","input":[]}`},
		{"continued", `{"type":"response.create","previous_response_id":"r1","input":[{"type":"message","role":"user","content":"now"}],"model":"m"}`, true,
			`{"stream":true,"model":"m","input":[{"type":"message","role":"user","content":"before"},{"type":"message","role":"user","content":"now"}]}`},
		{"malformed top level", `{"type":"response.create","model":"m" "input":"hi"}`, false, ""},
		{"unclosed", `{"type":"response.create","model":"m","input":"hi"`, false, ""},
	} {
		got := appendTurnBody(nil, []byte(c.frame), conversation, c.expand)
		want := c.want
		if want == "" {
			want = string(appendTurnBodyLenient(nil, gjson.Parse(c.frame), conversation, c.expand))
		}
		if string(got) != want {
			t.Errorf("%s: %s, want %s", c.name, got, want)
		}
	}
}
