package interactions

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// benchBody returns the conversation of the gemini family's benchmark as
// a create-interaction body of about 5 KB: a system instruction and 20
// steps with sampling parameters (the same texts, so that the figures
// compare).
func benchBody() []byte {
	sentence := "The quick brown fox jumps over the lazy dog while the \"careful\" engineer reviews line 42.\n"
	var b strings.Builder
	b.WriteString(`{"model":"gemini-2.5-flash","input":[`)
	for i := 0; i < 20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		typ := "user_input"
		if i%2 == 1 {
			typ = "model_output"
		}
		b.WriteString(`{"type":"` + typ + `","content":[{"type":"text","text":`)
		b.WriteString(strconv.Quote("Turn " + strconv.Itoa(i) + ": " + strings.Repeat(sentence, 2)))
		b.WriteString(`}]}`)
	}
	b.WriteString(`],"system_instruction":`)
	b.WriteString(strconv.Quote("You are a meticulous assistant. " + strings.Repeat(sentence, 3)))
	b.WriteString(`,"generation_config":{"max_output_tokens":1024,"temperature":0.7,"top_p":0.95,"stop_sequences":["END"],"seed":7},"safety_settings":[]}`)
	return []byte(b.String())
}

func TestInteractionsBenchBody(t *testing.T) {
	body := benchBody()
	if n := len(body); n < 4500 || n > 6500 {
		t.Errorf("benchmark body is %d bytes, want about 5 KB", n)
	}
	req, err := decode(t, string(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 20 || len(req.System) != 1 {
		t.Errorf("benchmark body decodes to %d messages and %d system parts", len(req.Messages), len(req.System))
	}
}

func BenchmarkInteractionsDecodeRequest(b *testing.B) {
	body := benchBody()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req codec.Request
		if err := codec.DecodeRequest(Gemini, body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInteractionsAppendRequest(b *testing.B) {
	body := benchBody()
	var req codec.Request
	if err := codec.DecodeRequest(Gemini, body, &req); err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var err error
		if dst, err = codec.AppendRequest(dst[:0], Gemini, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInteractionsTranslateRequest measures decode and encode of one
// request together, as BenchmarkGeminiTranslateRequest does.
func BenchmarkInteractionsTranslateRequest(b *testing.B) {
	body := benchBody()
	dst := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req codec.Request
		if err := codec.DecodeRequest(Gemini, body, &req); err != nil {
			b.Fatal(err)
		}
		var err error
		if dst, err = codec.AppendRequest(dst[:0], Gemini, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInteractionsAppendResponse(b *testing.B) {
	resp := codec.Response{
		ID: "v1_ChdTMjhmYWRYbk9vQ2lrZFVQN2Y2enFRZxIXUzI4ZmFkWG5Pb0Npa2RVUDdmNnpxUWc", Model: "gemini-2.5-flash",
		Content:    []codec.Part{{Type: codec.PartText, Text: strings.Repeat("A reasonably long answer with \"quotes\" and newlines.\n", 20)}},
		StopReason: mapping.StopEnd,
		Usage:      codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1000, OutputTokens: 300, ReasoningTokens: 100},
	}
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = codec.AppendResponse(dst[:0], Gemini, &resp); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(dst)))
}
