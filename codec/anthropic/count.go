package anthropic

import (
	"encoding/base64"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// countFields are the members of an Anthropic count_tokens body
// (anthropic-sdk-go MessageCountTokensParams and its beta).
var countFields = []string{"model", "messages", "system", "tools", "tool_choice", "thinking",
	"output_config", "cache_control", "context_management", "mcp_servers", "speed"}

// bedrockCountedBody returns the InvokeModel body that a Bedrock
// CountTokens request counts: {"input":{"invokeModel":{"body":
// base64(body)}}}. A count of Converse input ({"input":{"converse":…}})
// belongs to the bedrock protocol and is refused here.
func bedrockCountedBody(body []byte) ([]byte, error) {
	root, err := wire.ParseObject(body)
	if err != nil {
		return nil, err
	}
	b := root.Get("input.invokeModel.body")
	if b.Type != gjson.String {
		if root.Get("input.converse").Exists() {
			return nil, codec.InvalidRequest("input.converse", "counting Converse input is not supported by this gateway (it shares its path with InvokeModel counting); count the InvokeModel body in input.invokeModel.body")
		}
		return nil, codec.InvalidRequest("input.invokeModel.body", "is required: the InvokeModel body to count, base64-encoded")
	}
	gen, derr := base64.StdEncoding.DecodeString(b.Str)
	if derr != nil {
		return nil, codec.InvalidRequest("input.invokeModel.body", "is not base64: "+derr.Error())
	}
	return gen, nil
}

// appendBedrockCountBody appends the Bedrock CountTokens body that counts
// gen, an InvokeModel body.
func appendBedrockCountBody(dst, gen []byte) []byte {
	dst = append(dst, `{"input":{"invokeModel":{"body":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, gen)
	return append(dst, `"}}}`...)
}
