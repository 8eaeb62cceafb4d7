package anthropic

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// adaptSibling adapts body, a request of protocol from, to p,
// another protocol of the family, going to model, streamed or not:
//   - the first-party API names the model in the body and streams when
//     the body says "stream": true;
//   - Vertex names the model in the path, carries an anthropic_version
//     (its own, or the client's Vertex version) and the stream member;
//   - Bedrock names the model in the path, carries Bedrock's
//     anthropic_version and streams by its path alone: it rejects a model
//     or stream member.
//
// The anthropic_beta member of a Bedrock body is the HTTP layer's to
// carry (Descriptor.BodyBetas); it is removed for the other protocols.
// Every other byte is kept.
func adaptSibling(p codec.Protocol, body []byte, from codec.Protocol, model string, stream bool) ([]byte, error) {
	if p == from {
		return body, nil
	}
	var err error
	set := func(path string, v any) {
		if err == nil {
			body, err = sjson.SetBytes(body, path, v)
		}
	}
	del := func(path string) {
		if err == nil && gjson.GetBytes(body, path).Exists() {
			body, err = sjson.DeleteBytes(body, path)
		}
	}
	if from == codec.BedrockAnthropic {
		del("anthropic_beta")
	}
	switch p {
	case codec.AnthropicMessages:
		del("anthropic_version")
		set("model", model)
		if from == codec.BedrockAnthropic && stream {
			set("stream", true)
		}
	case codec.VertexAnthropic:
		del("model")
		if from != codec.VertexAnthropic {
			// A Bedrock version means nothing to Vertex; a first-party
			// body has none.
			del("anthropic_version")
			set("anthropic_version", VertexVersion)
		}
		if from == codec.BedrockAnthropic && stream {
			set("stream", true)
		}
	case codec.BedrockAnthropic:
		del("model")
		del("stream")
		set("anthropic_version", BedrockVersion)
		if err == nil {
			body, err = moveAutoCacheControl(body)
		}
	}
	return body, err
}

// moveAutoCacheControl moves the top-level cache_control of body (automatic
// caching), which Bedrock's InvokeModel refuses, onto the last block of the
// conversation that can carry one, where Anthropic places it: not thinking,
// not an empty text. A string content becomes one text block; a block that
// has a breakpoint of its own keeps it.
func moveAutoCacheControl(body []byte) ([]byte, error) {
	auto := gjson.GetBytes(body, "cache_control")
	if !auto.Exists() {
		return body, nil
	}
	body, err := sjson.DeleteBytes(body, "cache_control")
	if err != nil || auto.Type == gjson.Null {
		return body, err
	}
	msgs := gjson.GetBytes(body, "messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		path := "messages." + strconv.Itoa(i) + ".content"
		content := msgs[i].Get("content")
		if content.Type == gjson.String {
			if content.Str == "" {
				continue
			}
			return sjson.SetRawBytes(body, path, []byte(`[{"type":"text","text":`+content.Raw+`,"cache_control":`+auto.Raw+`}]`))
		}
		blocks := content.Array()
		for j := len(blocks) - 1; j >= 0; j-- {
			b := blocks[j]
			switch t := b.Get("type").Str; {
			case t == "thinking" || t == "redacted_thinking" || t == "text" && b.Get("text").Str == "":
				continue
			case b.Get("cache_control").Exists():
				return body, nil
			}
			return sjson.SetRawBytes(body, path+"."+strconv.Itoa(j)+".cache_control", []byte(auto.Raw))
		}
	}
	return body, nil
}
