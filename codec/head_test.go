package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

func TestReadRequestHead(t *testing.T) {
	for _, c := range []struct {
		body     string
		model    string
		stream   bool
		repeated string
		invalid  bool
	}{
		{body: `{"model":"m","stream":true,"messages":[]}`, model: "m", stream: true},
		{body: `{"messages":[{"model":"x","stream":true}],"model":"m"}`, model: "m"},
		{body: `{"stream":true,"x":{"stream":1},"model":"m"}`, model: "m", stream: true},
		{body: `{"model":"a\u00e9\"b"}`, model: "aé\"b"},
		{body: `{"model":"a","model":"b"}`, model: "b", repeated: "model"},
		{body: `{"stream":false,"model":"m","stream":true}`, model: "m", stream: true, repeated: "stream"},
		{body: `{"anthropic_version":"v","messages":[],"anthropic_version":"w"}`, repeated: "anthropic_version"},
		{body: `{"model":"m","stream":true,"model":"n","stream":false}`, model: "n", repeated: "model"},
		{body: `[1]`, invalid: true},
		{body: `{"model":"m"`, invalid: true},
		{body: `{"model":"m\x01"}`, invalid: true},
	} {
		head, err := codec.ReadRequestHead([]byte(c.body))
		if c.invalid {
			if err == nil {
				t.Errorf("%s: no error", c.body)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		if head.Model != c.model || head.Stream != c.stream || head.Repeated != c.repeated {
			t.Errorf("%s: model %q stream %v repeated %q, want %q %v %q", c.body, head.Model, head.Stream, head.Repeated, c.model, c.stream, c.repeated)
		}
	}
	if head, _ := codec.ReadRequestHead([]byte(`{"messages":[]}`)); head.HasModel || head.Model != "" {
		t.Errorf("absent model is %+v", head)
	}
}

// TestReadRequestHeadSettings reads the generation settings where each
// family keeps them, numbers only.
func TestReadRequestHeadSettings(t *testing.T) {
	for _, c := range []struct {
		body        string
		max         codec.OptInt
		temp, top_p codec.OptFloat
	}{
		{body: `{"max_tokens":100,"temperature":0.5,"top_p":0.9}`, max: codec.OptInt{Value: 100, Set: true}, temp: codec.OptFloat{Value: 0.5, Set: true}, top_p: codec.OptFloat{Value: 0.9, Set: true}},
		{body: `{"max_completion_tokens":7}`, max: codec.OptInt{Value: 7, Set: true}},
		{body: `{"max_output_tokens":8,"temperature":"hot"}`, max: codec.OptInt{Value: 8, Set: true}},
		{body: `{"generationConfig":{"maxOutputTokens":9,"topP":0.5}}`, max: codec.OptInt{Value: 9, Set: true}, top_p: codec.OptFloat{Value: 0.5, Set: true}},
		{body: `{"inferenceConfig":{"maxTokens":10,"temperature":1}}`, max: codec.OptInt{Value: 10, Set: true}, temp: codec.OptFloat{Value: 1, Set: true}},
		{body: `{"messages":[{"max_tokens":3}],"metadata":{"temperature":2}}`},
	} {
		head, err := codec.ReadRequestHead([]byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if head.MaxTokens != c.max || head.Temperature != c.temp || head.TopP != c.top_p {
			t.Errorf("%s: %+v %+v %+v, want %+v %+v %+v", c.body, head.MaxTokens, head.Temperature, head.TopP, c.max, c.temp, c.top_p)
		}
	}
}

// BenchmarkReadRequestHead measures the head read of a passed-through
// request, a chat and an agent request, in the families that keep their
// generation settings at the top, in generationConfig and in
// inferenceConfig.
func BenchmarkReadRequestHead(b *testing.B) {
	for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.Gemini, codec.Bedrock} {
		for _, size := range []struct {
			name string
			req  *codec.Request
		}{{"chat", benchConversation()}, {"agent", benchAgentRequest()}} {
			size.req.MaxTokens = codec.OptInt{Value: 1024, Set: true}
			size.req.Temperature = codec.OptFloat{Value: 0.7, Set: true}
			body, err := codec.AppendRequest(nil, p, size.req, codec.EncodeOptions{Model: "bench-model"})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(string(p)+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := codec.ReadRequestHead(body); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
