package codec

import "testing"

func BenchmarkTmpSplit(b *testing.B) {
	for _, p := range []Protocol{AnthropicMessages, OpenAIChat, OpenAIResponses, Gemini} {
		body := benchBody(b, p)
		s := string(body)
		b.Run("scan/"+string(p), func(b *testing.B) {
			var x jsonIndex
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				x.build(s)
			}
		})
		b.Run("decode/"+string(p), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req := new(Request)
				if err := DecodeRequest(p, body, req); err != nil {
					b.Fatal(err)
				}
			}
		})
		req := new(Request)
		DecodeRequest(p, body, req)
		b.Run("encode/"+string(p), func(b *testing.B) {
			out := make([]byte, 0, 16<<10)
			b.ReportAllocs()
			for b.Loop() {
				out, _ = AppendRequest(out[:0], p, req, EncodeOptions{})
			}
		})
	}
	b.Log(string(benchBody(b, AnthropicMessages))[:600])
}
