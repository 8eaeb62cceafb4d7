package codec_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
)

// benchConversation is a realistic ~5 KB, 20-message chat: a system prompt
// and alternating turns whose texts contain newlines and quotes (escapes are
// what make JSON decoding allocate).
func benchConversation() *codec.Request {
	r := &codec.Request{
		Model:       "bench-model",
		System:      []codec.Part{{Type: codec.PartText, Text: strings.Repeat("You are a careful assistant. Follow the \"house style\".\n", 8)}},
		MaxTokens:   codec.OptInt{Value: 1024, Set: true},
		Temperature: codec.OptFloat{Value: 0.7, Set: true},
		TopP:        codec.OptFloat{Value: 0.95, Set: true},
	}
	for i := 0; i < 20; i++ {
		role := codec.RoleUser
		if i%2 == 1 {
			role = codec.RoleAssistant
		}
		text := "Message " + strconv.Itoa(i) + ": " + strings.Repeat("some words of a conversation, ", 6) + "\n\"quoted\" and more.\n"
		r.Messages = append(r.Messages, codec.Message{Role: role, Parts: []codec.Part{{Type: codec.PartText, Text: text}}})
	}
	return r
}

// benchBody returns the benchmark conversation encoded in protocol p.
func benchBody(b *testing.B, p codec.Protocol) []byte {
	b.Helper()
	body, err := codec.AppendRequest(nil, p, benchConversation(), codec.EncodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkTranslateRequest measures one request translation, decode plus
// encode, as the handler does it: a fresh Request and a reused output buffer.
func BenchmarkTranslateRequest(b *testing.B) {
	pairs := [][2]codec.Protocol{
		{codec.AnthropicMessages, codec.OpenAIChat},
		{codec.OpenAIChat, codec.AnthropicMessages},
		{codec.OpenAIResponses, codec.AnthropicMessages},
		{codec.AnthropicMessages, codec.Gemini},
		{codec.Gemini, codec.OpenAIChat},
		{codec.OpenAIChat, codec.OpenAIResponses},
		{codec.AnthropicMessages, interactions.Gemini},
		{interactions.Gemini, codec.OpenAIChat},
	}
	for _, pair := range pairs {
		from, to := pair[0], pair[1]
		body := benchBody(b, from)
		b.Run(string(from)+"->"+string(to), func(b *testing.B) {
			out := make([]byte, 0, 16<<10)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req := new(codec.Request)
				if err := codec.DecodeRequest(from, body, req); err != nil {
					b.Fatal(err)
				}
				req.Model = "bench-model"
				var err error
				out, err = codec.AppendRequest(out[:0], to, req, codec.EncodeOptions{})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTranslateResponse measures one non-streamed response translation.
func BenchmarkTranslateResponse(b *testing.B) {
	pairs := [][2]codec.Protocol{
		{codec.OpenAIChat, codec.AnthropicMessages},
		{codec.AnthropicMessages, codec.OpenAIChat},
		{codec.Gemini, codec.OpenAIResponses},
		{codec.OpenAIResponses, codec.Gemini},
		{interactions.Gemini, codec.OpenAIResponses},
		{codec.OpenAIResponses, interactions.Gemini},
	}
	resp := &codec.Response{ID: "id-1", Model: "bench-model", Created: 1767225600, StopReason: mapping.StopEnd,
		Content: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("A reasonably long answer line.\n", 30)}},
		Usage:   codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1000, OutputTokens: 300}}
	for _, pair := range pairs {
		from, to := pair[0], pair[1]
		body, err := codec.AppendResponse(nil, from, resp)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(from)+"->"+string(to), func(b *testing.B) {
			out := make([]byte, 0, 16<<10)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				var r codec.Response
				if err := codec.DecodeResponse(from, body, &r); err != nil {
					b.Fatal(err)
				}
				out, err = codec.AppendResponse(out[:0], to, &r)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchAgentRequest is a realistic ~90 KB agent request, shaped like
// Claude Code's: a 28 KB system prompt in three blocks, 12 tools with large
// schemas, and a 10-message history with tool calls and results.
func benchAgentRequest() *codec.Request {
	r := &codec.Request{Model: "bench-model", MaxTokens: codec.OptInt{Value: 32000, Set: true}}
	block := strings.Repeat("You are an interactive CLI tool. Follow the \"rules\" below carefully.\n", 135)
	for range 3 {
		r.System = append(r.System, codec.Part{Type: codec.PartText, Text: block})
	}
	prop := `"p%d":{"type":"string","description":"` + strings.Repeat("A parameter that controls one aspect of the tool. ", 12) + `"}`
	for i := range 12 {
		var props []string
		for j := range 8 {
			props = append(props, strings.Replace(prop, "%d", strconv.Itoa(j), 1))
		}
		r.Tools = append(r.Tools, codec.Tool{Kind: codec.ToolFunction, Name: "tool_" + strconv.Itoa(i),
			Description: strings.Repeat("Runs an operation in the workspace and returns its output. ", 6),
			Parameters:  `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["p0"],"additionalProperties":false}`})
	}
	for i := range 5 {
		id := "toolu_" + strconv.Itoa(i)
		r.Messages = append(r.Messages,
			codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Please look at file " + strconv.Itoa(i) + " and fix the \"bug\".\n"}}},
			codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "Reading the file."},
				{Type: codec.PartToolCall, ToolCallID: id, ToolName: "tool_1", Arguments: `{"p0":"src/file` + strconv.Itoa(i) + `.go","p1":"all"}`}}})
		r.Messages = append(r.Messages, codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: id, ToolName: "tool_1",
			Content: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", 40)}}}}})
	}
	return r
}

// BenchmarkTranslateAgentRequest measures the translation of a ~90 KB agent
// request, decode plus encode, as the handler does it.
func BenchmarkTranslateAgentRequest(b *testing.B) {
	pairs := [][2]codec.Protocol{{codec.AnthropicMessages, codec.OpenAIChat}, {codec.OpenAIResponses, codec.AnthropicMessages}, {codec.AnthropicMessages, codec.Gemini},
		{codec.AnthropicMessages, interactions.Gemini}, {interactions.Gemini, codec.AnthropicMessages},
		{codec.OpenAIResponses, codec.OpenAIChat}, {codec.OpenAIChat, codec.AnthropicMessages}}
	for _, pair := range pairs {
		from, to := pair[0], pair[1]
		body, err := codec.AppendRequest(nil, from, benchAgentRequest(), codec.EncodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(from)+"->"+string(to), func(b *testing.B) {
			out := make([]byte, 0, 128<<10)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req := new(codec.Request)
				if err := codec.DecodeRequest(from, body, req); err != nil {
					b.Fatal(err)
				}
				req.Model = "bench-model"
				if out, err = codec.AppendRequest(out[:0], to, req, codec.EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// scaleConversation is an agent's tool loop of n steps, each a short
// assistant turn with a tool call and a ~1.5 KB tool result of code (an
// escape every 9 bytes): the shape of BenchmarkServeAgent's bodies, made as
// long as asked.
func scaleConversation(n int) *codec.Request {
	req := &codec.Request{Model: "bench-model", MaxTokens: codec.OptInt{Value: 1024, Set: true},
		System: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("You are a careful coding agent. ", 60)}}}
	req.Messages = append(req.Messages, codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Fix the failing test."}}})
	for i := 1; i <= n; i++ {
		id := "call_" + strconv.Itoa(i)
		req.Messages = append(req.Messages,
			codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartText, Text: "Reading the next file."},
				{Type: codec.PartToolCall, ToolCallID: id, ToolName: "tool_1", Arguments: `{"path":"pkg/file_` + strconv.Itoa(i) + `.go"}`}}},
			codec.Message{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: id, ToolName: "tool_1", Content: []codec.Part{{Type: codec.PartText,
					Text: strings.Repeat("func f() { return \"line\" }\n", 55)}}}}})
	}
	return req
}

// BenchmarkDecodeScale decodes Anthropic bodies of one shape from 16 KB to
// 4 MB, and runs the validating pass that indexes them alone: the bytes per
// second of each say what a body's size costs beyond its length (the body
// and its index outgrowing the caches), which is what a decoder that reads
// each value once, while validating, would save.
func BenchmarkDecodeScale(b *testing.B) {
	for _, steps := range []int{8, 32, 128, 512, 2048} {
		body, err := codec.AppendRequest(nil, codec.AnthropicMessages, scaleConversation(steps), codec.EncodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		name := strconv.Itoa(len(body)>>10) + "KB"
		b.Run("index/"+name, func(b *testing.B) {
			s := string(body)
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				x := jsonx.IndexDocument(s)
				if x == nil {
					b.Fatal("invalid")
				}
				x.Release()
			}
		})
		b.Run("decode/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var req codec.Request
			for b.Loop() {
				req.Reset()
				if err := codec.DecodeRequest(codec.AnthropicMessages, body, &req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
