package bedrock

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// TestCountTokens writes and reads Bedrock's CountTokens of Converse
// input: the path of the model, the counted members in input.converse,
// and the count in inputTokens.
func TestCountTokens(t *testing.T) {
	d := codec.Bedrock.Descriptor()
	if got := d.CountPath(codec.Location{}, "us.anthropic.claude-sonnet-4-5-20250929-v1:0"); got != "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens" {
		t.Errorf("CountPath = %s", got)
	}
	req := codec.Request{Model: "m", System: []codec.Part{{Type: codec.PartText, Text: "Be brief."}}, MaxTokens: codec.OptInt{Value: 50, Set: true},
		Temperature: codec.OptFloat{Value: 0.5, Set: true},
		Messages:    []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Hi"}}}}}
	body, err := codec.AppendCountRequest(nil, codec.Bedrock, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := gjson.GetBytes(body, "input.converse")
	if c.Get("messages.0.content.0.text").Str != "Hi" || c.Get("system.0.text").Str != "Be brief." || c.Get("inferenceConfig").Exists() {
		t.Errorf("count body %s", body)
	}
	var back codec.Request
	if err := codec.DecodeCountRequest(codec.Bedrock, body, &back); err != nil || len(back.Messages) != 1 {
		t.Errorf("decoding the count body: %v %+v", err, back)
	}
	for _, bad := range []string{`{"input":{"invokeModel":{"body":"e30="}}}`, `[]`, `{"input":{"converse":[]}}`} {
		if err := codec.DecodeCountRequest(codec.Bedrock, []byte(bad), &back); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
	if n, err := codec.DecodeCountResponse(codec.Bedrock, []byte(`{"inputTokens":42}`)); err != nil || n != 42 {
		t.Errorf("count %d, %v", n, err)
	}
	if got := string(codec.AppendCountResponse(nil, codec.Bedrock, 7)); got != `{"inputTokens":7}` {
		t.Errorf("count response %s", got)
	}
}
