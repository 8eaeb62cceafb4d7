package anthropic

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// benchRequest returns a realistic request body of about 5 KB: a
// system prompt and a 20-message conversation, mixing string and block
// content, with escapes in the text as real conversations have.
func benchRequest(vertex bool) []byte {
	var b []byte
	if vertex {
		b = append(b, `{"anthropic_version":"vertex-2023-10-16","max_tokens":4096,`...)
	} else {
		b = append(b, `{"model":"claude-sonnet-4-5","max_tokens":4096,`...)
	}
	b = append(b, `"system":[{"type":"text","text":`...)
	b = jsonx.AppendString(b, "You are a meticulous senior engineer helping with a Go code base.\n"+
		"Answer precisely, cite the files you rely on, and say \"I don't know\" when unsure.")
	b = append(b, `,"cache_control":{"type":"ephemeral"}}],"messages":[`...)
	for i := range 20 {
		if i > 0 {
			b = append(b, ',')
		}
		role := "user"
		text := "Message " + strconv.Itoa(i) + ": could you look at the handler in server.go and explain why the " +
			"\"ServeHTTP\" method allocates on every request?\nI measured it with go test -bench and saw 12 allocs/op."
		if i%2 == 1 {
			role = "assistant"
			text = "Reply " + strconv.Itoa(i) + ": the allocations come from three places.\n1. The closure passed " +
				"to ForEach escapes.\n2. strings.Builder grows twice.\n3. The map literal in \"writeHeader\" is rebuilt each time."
		}
		b = append(b, `{"role":"`...)
		b = append(b, role...)
		b = append(b, `","content":`...)
		if i%3 == 0 {
			b = jsonx.AppendString(b, text)
		} else {
			b = append(b, `[{"type":"text","text":`...)
			b = jsonx.AppendString(b, text)
			b = append(b, `}]`...)
		}
		b = append(b, '}')
	}
	b = append(b, `],"temperature":0.2,"top_p":0.9,"stop_sequences":["\n\nHuman:"],"metadata":{"user_id":"user-1234"}}`...)
	return b
}

// benchDecode runs decode benchmarks on the request body, with a
// fresh Request per iteration and with one reused through Reset, as a
// pooling caller does; encode, when set, also encodes every request.
func benchDecode(b *testing.B, encode bool) {
	body := benchRequest(false)
	dst := make([]byte, 0, 2*len(body))
	run := func(b *testing.B, next func() *codec.Request) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			req := next()
			if err := codec.DecodeRequest(codec.AnthropicMessages, body, req); err != nil {
				b.Fatal(err)
			}
			if !encode {
				continue
			}
			var err error
			if dst, err = codec.AppendRequest(dst[:0], codec.VertexAnthropic, req, codec.EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("fresh", func(b *testing.B) {
		run(b, func() *codec.Request { return new(codec.Request) })
	})
	b.Run("reused", func(b *testing.B) {
		var req codec.Request
		run(b, func() *codec.Request { req.Reset(); return &req })
	})
}

func BenchmarkAnthropicDecodeRequest(b *testing.B) { benchDecode(b, false) }

// BenchmarkAnthropicTranslateRequest measures decode and encode together,
// the figure the codec's performance target is about (docs/performance.md).
func BenchmarkAnthropicTranslateRequest(b *testing.B) { benchDecode(b, true) }

func BenchmarkAnthropicAppendRequest(b *testing.B) {
	body := benchRequest(false)
	var req codec.Request
	if err := codec.DecodeRequest(codec.AnthropicMessages, body, &req); err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 0, 2*len(body))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = codec.AppendRequest(dst[:0], codec.AnthropicMessages, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnthropicValidBaseline measures gjson.Valid on the same body, a
// floor that every decoder pays (DecodeRequest validates first), to read
// the other figures against the speed of the machine.
func BenchmarkAnthropicValidBaseline(b *testing.B) {
	body := string(benchRequest(false))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !gjson.Valid(body) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkAnthropicAppendResponse(b *testing.B) {
	resp := codec.Response{
		ID: "msg_01KrnBffuzxt8ttHq7iiZe7n", Model: "claude-sonnet-4-20250514",
		Content: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("Olá! That's \"hello\" in Portuguese.\n", 30)}},
		Usage:   codec.Usage{Known: true, InputTokens: 1532, CacheWriteTokens: 418, CacheReadTokens: 1111, OutputTokens: 330},
	}
	dst := make([]byte, 0, 4096)
	b.SetBytes(int64(len(resp.Content[0].Text)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = codec.AppendResponse(dst[:0], codec.AnthropicMessages, &resp); err != nil {
			b.Fatal(err)
		}
	}
}
