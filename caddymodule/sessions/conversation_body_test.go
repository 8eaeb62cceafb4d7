package sessions

import (
	"encoding/json"
	"fmt"
	"strings"
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
		{"empty input", `{"input":[],"previous_response_id":"resp_1"}`,
			`{"input":[{"role":"user","content":"a"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]}]}`},
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
		{"empty input", `{"input":[ ]}`, `[{"id":"m1"}]`, `[{"id":"m1"}]`},
		{"spaced items", "{ \"input\" : [ {\"role\":\"user\",\"content\":\"a\"} ,\n {\"content\":[1, 2]} ] }", `[{"id":"m1"} ]`,
			"[{\"role\":\"user\",\"content\":\"a\"} ,\n {\"content\":[1, 2]},{\"id\":\"m1\"}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendConversation([]byte("x"), []byte(tc.body), tc.output)
			if !json.Valid(got[1:]) {
				t.Errorf("AppendConversation = %s: not JSON", got)
			}
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

// BenchmarkAppendConversation keeps the conversation of an answered agent
// request of about 100 KB: what every Responses request kept with store
// on costs after its answer.
func BenchmarkAppendConversation(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"model":"m","instructions":"` + strings.Repeat("Be careful. ", 200) + `","input":[`)
	for i := range 300 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"type":"function_call","call_id":"c%d","name":"read","arguments":"{\"path\":\"f%d.go\"}"},{"type":"function_call_output","call_id":"c%d","output":"%s"}`, i, i, i, strings.Repeat(`x := \"y\"\n`, 20))
	}
	body.WriteString(`],"store":true}`)
	in := []byte(body.String())
	output := `[{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"done"}]}]`
	dst := make([]byte, 0, len(in)+len(output))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendConversation(dst[:0], in, output)
	}
}
