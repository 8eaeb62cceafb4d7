package sessions

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

func TestReadAsk(t *testing.T) {
	for _, tc := range []struct {
		body string
		want Ask
	}{
		{`{"model":"m","input":"hi"}`, Ask{Store: true}},
		{`{"previous_response_id":"resp_1","store":true}`, Ask{Previous: "resp_1", Store: true}},
		{`{"previous_response_id":"resp_1","store":false}`, Ask{Previous: "resp_1"}},
		// A malformed field reads as absent; the codec names it.
		{`{"previous_response_id":7,"store":"no"}`, Ask{Store: true}},
		{`[1,2]`, Ask{}},
		{`not json`, Ask{}},
	} {
		if got := ReadAsk([]byte(tc.body)); got != tc.want {
			t.Errorf("ReadAsk(%s) = %+v, want %+v", tc.body, got, tc.want)
		}
	}
}

func TestExpandBody(t *testing.T) {
	conversation := `[{"role":"user","content":"a"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]}]`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"string input", `{"model":"m","previous_response_id":"resp_1","input":"c","instructions":"be brief"}`,
			`{"model":"m","instructions":"be brief","input":[{"role":"user","content":"a"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]},{"role":"user","content":"c"}]}`},
		{"item input", `{"input":[{"type":"function_call_output","call_id":"c1","output":"42"}],"previous_response_id":"resp_1"}`,
			`{"input":[{"role":"user","content":"a"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]},{"type":"function_call_output","call_id":"c1","output":"42"}]}`},
		{"no other member", `{"previous_response_id":"resp_1"}`,
			`{"input":[{"role":"user","content":"a"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ExpandBody(nil, []byte(tc.body), []byte(conversation))
			if string(got) != tc.want || !json.Valid(got) {
				t.Errorf("ExpandBody =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestAppendConversation(t *testing.T) {
	for _, tc := range []struct {
		name, body, output, want string
	}{
		{"string input", `{"input":"hi"}`, `[{"type":"message","id":"m1"}]`, `[{"role":"user","content":"hi"},{"type":"message","id":"m1"}]`},
		{"items", `{"input":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, ` [ {"id":"m1"} ] `, `[{"role":"user","content":"a"},{"role":"user","content":"b"},{"id":"m1"}]`},
		{"no output", `{"input":"hi"}`, `[]`, `[{"role":"user","content":"hi"}]`},
		{"blank output", `{"input":"hi"}`, `[  ]`, `[{"role":"user","content":"hi"}]`},
		{"no input", `{"model":"m"}`, `[{"id":"m1"}]`, `[{"id":"m1"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendConversation([]byte("x"), []byte(tc.body), tc.output)
			if string(got) != "x"+tc.want {
				t.Errorf("AppendConversation = %s, want x%s", got, tc.want)
			}
		})
	}
}

func TestReadAnswer(t *testing.T) {
	for _, tc := range []struct {
		resp string
		want Answer
		ok   bool
	}{
		{`{"id":"resp_1","status":"completed","output":[{"id":"m1"}]}`, Answer{ID: "resp_1", Output: `[{"id":"m1"}]`}, true},
		{`{"id":"resp_1","status":"incomplete","output":[]}`, Answer{ID: "resp_1", Output: `[]`}, true},
		{`{"id":"resp_1","status":"failed","output":[]}`, Answer{}, false},
		{`{"id":"","status":"completed","output":[]}`, Answer{}, false},
		{`{"id":"resp_1","status":"completed"}`, Answer{}, false},
	} {
		got, ok := ReadAnswer(gjson.Parse(tc.resp))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ReadAnswer(%s) = %+v %v, want %+v %v", tc.resp, got, ok, tc.want, tc.ok)
		}
	}
	for name, want := range map[string]bool{"response.completed": true, "response.incomplete": true, "response.failed": false, "response.output_text.delta": false} {
		if TerminalEvent([]byte(name)) != want {
			t.Errorf("TerminalEvent(%s) = %v", name, !want)
		}
	}
}
