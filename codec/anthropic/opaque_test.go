package anthropic

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// compaction is a compaction block as Anthropic's context
// management returns it (compact_20260112).
const compaction = `{"type":"compaction","content":"Summary of the earlier turns.","encrypted_content":"EqYBCkgIC"}`

// TestAnthropicOpaqueBlocks: blocks llmbridge does not translate (a
// compaction, another server tool's blocks, a type added later) never fail
// an answer: the text around them reaches every client, the block travels
// in the client's continuation slot, and comes back whole, in place, to an
// Anthropic upstream on the next turn.
func TestAnthropicOpaqueBlocks(t *testing.T) {
	blocks := []string{
		compaction,
		`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://example.com"}}`,
		`{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"code_execution_result","stdout":"4"}}`,
		`{"type":"block_of_2027","x":[1,2]}`,
	}
	for _, block := range blocks {
		body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` + block +
			`,{"type":"text","text":"The answer."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`
		var resp codec.Response
		if err := codec.DecodeResponse(codec.AnthropicMessages, []byte(body), &resp); err != nil {
			t.Fatalf("%s: %v", block, err)
		}
		want := codec.Part{Type: codec.PartReasoning, Redacted: true, Origin: mapping.FamilyAnthropic, Signature: block}
		if len(resp.Content) != 2 || !codectest.EqualDecoded(resp.Content[0], want) || resp.Content[1].Text != "The answer." {
			t.Fatalf("%s: content %+v", block, resp.Content)
		}
		// Through a Responses client and back to Anthropic.
		out, err := codec.AppendResponse(nil, codec.OpenAIResponses, &resp)
		if err != nil {
			t.Fatal(err)
		}
		enc := gjson.GetBytes(out, `output.#(type=="reasoning").encrypted_content`).Str
		if !mapping.IsEnvelope(enc) || strings.Contains(string(out), "Summary of the earlier") {
			t.Fatalf("%s: the block did not travel as an envelope only: %s", block, out)
		}
		next := `{"model":"m","input":[{"role":"user","content":"Q"},` + gjson.GetBytes(out, "output").Raw[1:len(gjson.GetBytes(out, "output").Raw)-1] +
			`,{"role":"user","content":"And then?"}]}`
		var req codec.Request
		if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(next), &req); err != nil {
			t.Fatal(err)
		}
		up, err := codec.AppendRequest(nil, codec.AnthropicMessages, &req, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := gjson.GetBytes(up, "messages.1.content.0").Raw
		if got != block {
			t.Errorf("the block came back as %s, want %s\n%s", got, block, up)
		}
		// Toward another family it is dropped and listed.
		req2 := codec.Request{}
		_ = codec.DecodeRequest(codec.OpenAIResponses, []byte(next), &req2)
		other, err := codec.AppendRequest(nil, codec.OpenAIChat, &req2, codec.EncodeOptions{})
		if err != nil || strings.Contains(string(other), "EqYBCkgIC") {
			t.Errorf("toward Chat: %v %s", err, other)
		}
	}
}
