package gemini

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// benchBody returns a realistic generateContent body of about 5 KB: a
// system instruction and a 20-turn conversation with sampling parameters.
func benchBody() []byte {
	sentence := "The quick brown fox jumps over the lazy dog while the \"careful\" engineer reviews line 42.\n"
	var b strings.Builder
	b.WriteString(`{"contents":[`)
	for i := 0; i < 20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		role := "user"
		if i%2 == 1 {
			role = "model"
		}
		b.WriteString(`{"role":"` + role + `","parts":[{"text":`)
		b.WriteString(strconv.Quote("Turn " + strconv.Itoa(i) + ": " + strings.Repeat(sentence, 2)))
		b.WriteString(`}]}`)
	}
	b.WriteString(`],"systemInstruction":{"role":"user","parts":[{"text":`)
	b.WriteString(strconv.Quote("You are a meticulous assistant. " + strings.Repeat(sentence, 3)))
	b.WriteString(`}]},"generationConfig":{"maxOutputTokens":1024,"temperature":0.7,"topP":0.95,"topK":40,"stopSequences":["END"],"seed":7},"safetySettings":[]}`)
	return []byte(b.String())
}

func TestGeminiBenchBody(t *testing.T) {
	body := benchBody()
	if n := len(body); n < 4500 || n > 6000 {
		t.Errorf("benchmark body is %d bytes, want about 5 KB", n)
	}
	req, err := decode(t, codec.Gemini, string(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 20 || len(req.System) != 1 {
		t.Errorf("benchmark body decodes to %d messages and %d system parts", len(req.Messages), len(req.System))
	}
}

func BenchmarkGeminiDecodeRequest(b *testing.B) {
	body := benchBody()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req codec.Request
		if err := codec.DecodeRequest(codec.Gemini, body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGeminiAppendRequest(b *testing.B) {
	body := benchBody()
	var req codec.Request
	if err := codec.DecodeRequest(codec.Gemini, body, &req); err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var err error
		if dst, err = codec.AppendRequest(dst[:0], codec.Gemini, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGeminiTranslateRequest measures what the codec's performance
// target is about: decode and encode of one request together.
func BenchmarkGeminiTranslateRequest(b *testing.B) {
	body := benchBody()
	dst := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req codec.Request
		if err := codec.DecodeRequest(codec.Gemini, body, &req); err != nil {
			b.Fatal(err)
		}
		var err error
		if dst, err = codec.AppendRequest(dst[:0], codec.Gemini, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGeminiAppendResponse(b *testing.B) {
	resp := codec.Response{
		ID: "gwCzadXvHKzFw-UPou_44AQ", Model: "gemini-2.5-flash",
		Content:    []codec.Part{{Type: codec.PartText, Text: strings.Repeat("A reasonably long answer with \"quotes\" and newlines.\n", 20)}},
		StopReason: mapping.StopEnd,
		Usage:      codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1000, OutputTokens: 300, ReasoningTokens: 100},
	}
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = codec.AppendResponse(dst[:0], codec.Gemini, &resp); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(dst)))
}
