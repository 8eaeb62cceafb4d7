package codec_test

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	// Each protocol family registers its protocols with codec.
	_ "github.com/llmbridge/llmbridge/codec/all"
)

// Translate a Responses API request into an Anthropic Messages request,
// without Caddy or any network.
func Example() {
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"input":"Hello"}`), &req); err != nil {
		panic(err)
	}
	body, err := codec.AppendRequest(nil, codec.AnthropicMessages, &req, codec.EncodeOptions{Model: "demo-model"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(req.Messages), gjson.GetBytes(body, "model"), gjson.GetBytes(body, "max_tokens"))
	// Output: 1 demo-model 4096
}
