package codec

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/mapping"
)

// TestResponsesOpaqueItems: Responses output items llmbridge does not
// translate (a compaction item, hosted tools' calls, types added later)
// never fail an answer: they travel in an Anthropic client's signature and
// come back whole, in place, to a Responses upstream on the next turn.
func TestResponsesOpaqueItems(t *testing.T) {
	items := []string{
		`{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAAAB"}`,
		`{"type":"code_interpreter_call","id":"ci_1","status":"completed","code":"print(4)","outputs":[]}`,
		`{"type":"item_of_2027","id":"x_1"}`,
	}
	for _, item := range items {
		body := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` + item +
			`,{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The answer.","annotations":[]}]}],` +
			`"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`
		var resp Response
		if err := DecodeResponse(OpenAIResponses, []byte(body), &resp); err != nil {
			t.Fatalf("%s: %v", item, err)
		}
		want := Part{Type: PartReasoning, Redacted: true, Origin: mapping.FamilyOpenAI, Signature: item}
		if len(resp.Content) != 2 || !equalDecoded(resp.Content[0], want) || resp.Content[1].Text != "The answer." {
			t.Fatalf("%s: content %+v", item, resp.Content)
		}
		out, err := AppendResponse(nil, AnthropicMessages, &resp)
		if err != nil {
			t.Fatal(err)
		}
		data := gjson.GetBytes(out, "content.0.data").Str
		if !mapping.IsEnvelope(data) || gjson.GetBytes(out, "content.1.text").Str != "The answer." {
			t.Fatalf("%s: %s", item, out)
		}
		content := gjson.GetBytes(out, "content").Raw
		next := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Q"},{"role":"assistant","content":` + content +
			`},{"role":"user","content":"And then?"}]}`
		var req Request
		if err := DecodeRequest(AnthropicMessages, []byte(next), &req); err != nil {
			t.Fatal(err)
		}
		up, err := AppendRequest(nil, OpenAIResponses, &req, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(up, "input.1").Raw; got != item {
			t.Errorf("the item came back as %s, want %s\n%s", got, item, up)
		}
		if strings.Contains(string(out), "print(4)") {
			t.Errorf("the item's content reached the client: %s", out)
		}
	}
}
