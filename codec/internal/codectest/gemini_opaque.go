package codectest

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// NextTurn builds the client's next request: a question, the assistant
// output of body (a response of client protocol c) replayed verbatim, and
// a follow-up question.
func NextTurn(t *testing.T, c codec.Protocol, body []byte) []byte {
	t.Helper()
	resp := gjson.ParseBytes(body)
	var out string
	var err error
	set := func(path, raw string) {
		if err == nil {
			out, err = sjson.SetRaw(out, path, raw)
		}
	}
	switch c.Family() {
	case codec.OpenAIChat:
		out = `{"model":"m","messages":[{"role":"user","content":"Q"}]}`
		set("messages.-1", resp.Get("choices.0.message").Raw)
		set("messages.-1", `{"role":"user","content":"And then?"}`)
	case codec.OpenAIResponses:
		out = `{"model":"m","input":[{"role":"user","content":"Q"}]}`
		for _, item := range resp.Get("output").Array() {
			set("input.-1", item.Raw)
		}
		set("input.-1", `{"role":"user","content":"And then?"}`)
	case codec.AnthropicMessages:
		out = `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Q"}]}`
		set("messages.-1", `{"role":"assistant","content":`+resp.Get("content").Raw+`}`)
		set("messages.-1", `{"role":"user","content":"And then?"}`)
	default:
		out = `{"contents":[{"role":"user","parts":[{"text":"Q"}]}]}`
		set("contents.-1", resp.Get("candidates.0.content").Raw)
		set("contents.-1", `{"role":"user","parts":[{"text":"And then?"}]}`)
	}
	if err != nil {
		t.Fatal(err)
	}
	return []byte(out)
}

// OtherFamilies are the client protocols of every family but that of u.
func OtherFamilies(u codec.Protocol) []codec.Protocol {
	var out []codec.Protocol
	for _, c := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini} {
		if c.Family() != u.Family() {
			out = append(out, c)
		}
	}
	return out
}
