package bedrock

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// benchBody returns a realistic Converse body of about 5 KB: a system
// prompt and a 20-turn conversation with inference settings.
func benchBody() []byte {
	sentence := "The quick brown fox jumps over the lazy dog while the \"careful\" engineer reviews line 42.\n"
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := 0; i < 20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b.WriteString(`{"role":"` + role + `","content":[{"text":`)
		b.WriteString(strconv.Quote("Turn " + strconv.Itoa(i) + ": " + strings.Repeat(sentence, 2)))
		b.WriteString(`}]}`)
	}
	b.WriteString(`],"system":[{"text":`)
	b.WriteString(strconv.Quote("You are a meticulous assistant. " + strings.Repeat(sentence, 3)))
	b.WriteString(`}],"inferenceConfig":{"maxTokens":1024,"temperature":0.7,"topP":0.95,"stopSequences":["END"]}}`)
	return []byte(b.String())
}

func TestBenchBody(t *testing.T) {
	body := benchBody()
	if n := len(body); n < 4500 || n > 6000 {
		t.Errorf("benchmark body is %d bytes, want about 5 KB", n)
	}
	req, err := decode(t, string(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 20 || len(req.System) != 1 {
		t.Errorf("benchmark body decodes to %d messages and %d system parts", len(req.Messages), len(req.System))
	}
	out, err2 := codec.AppendRequest(nil, codec.Bedrock, &req, codec.EncodeOptions{})
	if err2 != nil || string(out) != string(body) {
		t.Errorf("re-encoded body differs (%v):\n%s", err2, out)
	}
}

func BenchmarkDecodeRequest(b *testing.B) {
	body := benchBody()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req codec.Request
		if err := codec.DecodeRequest(codec.Bedrock, body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendRequest(b *testing.B) {
	body := benchBody()
	var req codec.Request
	if err := codec.DecodeRequest(codec.Bedrock, body, &req); err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var err error
		if dst, err = codec.AppendRequest(dst[:0], codec.Bedrock, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranslateRequest measures decode and encode of one request
// together.
func BenchmarkTranslateRequest(b *testing.B) {
	body := benchBody()
	dst := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req codec.Request
		if err := codec.DecodeRequest(codec.Bedrock, body, &req); err != nil {
			b.Fatal(err)
		}
		var err error
		if dst, err = codec.AppendRequest(dst[:0], codec.Bedrock, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendResponse(b *testing.B) {
	resp := codec.Response{
		Content:    []codec.Part{{Type: codec.PartText, Text: strings.Repeat("A reasonably long answer with \"quotes\" and newlines.\n", 20)}},
		StopReason: mapping.StopEnd,
		Usage:      codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1000, OutputTokens: 300},
	}
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = codec.AppendResponse(dst[:0], codec.Bedrock, &resp); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(dst)))
}

func BenchmarkDecodeResponse(b *testing.B) {
	body := []byte(`{"output":{"message":{"role":"assistant","content":[{"text":` +
		strconv.Quote(strings.Repeat("A reasonably long answer with \"quotes\" and newlines.\n", 20)) +
		`}]}},"stopReason":"end_turn","usage":{"inputTokens":200,"outputTokens":300,"totalTokens":1500,"cacheReadInputTokens":1000},"metrics":{"latencyMs":812}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var resp codec.Response
		if err := codec.DecodeResponse(codec.Bedrock, body, &resp); err != nil {
			b.Fatal(err)
		}
	}
}
