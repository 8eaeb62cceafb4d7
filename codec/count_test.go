package codec_test

import (
	"encoding/json"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/anthropic"
	"github.com/tidwall/gjson"
)

// Token counting request bodies as each client protocol sends them, all
// for one conversation: a system prompt, one user message and one tool.
var countRequests = map[codec.Protocol]string{
	codec.AnthropicMessages: `{"model":"claude-x","system":"Be brief.","messages":[{"role":"user","content":"Hi"}],` +
		`"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}]}`,
	codec.VertexAnthropic: `{"anthropic_version":"vertex-2023-10-16","model":"claude-x","system":"Be brief.","messages":[{"role":"user","content":"Hi"}],` +
		`"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}]}`,
	codec.Gemini: `{"generateContentRequest":{"model":"models/ignored","systemInstruction":{"parts":[{"text":"Be brief."}]},` +
		`"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":{"type":"object"}}]}]}}`,
	codec.Vertex: `{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"Hi"}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":{"type":"object"}}]}]}`,
	codec.OpenAIResponses: `{"model":"claude-x","instructions":"Be brief.","input":"Hi",` +
		`"tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object"}}]}`,
}

func TestCountRequestTranslation(t *testing.T) {
	// What each upstream protocol's count request must hold: its members
	// (and nothing else) and where the system prompt ended up.
	want := map[codec.Protocol]struct {
		members []string
		system  string // a gjson path to the system text
	}{
		codec.AnthropicMessages: {[]string{"model", "messages", "system", "tools"}, "system"},
		codec.VertexAnthropic:   {[]string{"model", "messages", "system", "tools", "anthropic_version"}, "system"},
		codec.Gemini:            {[]string{"generateContentRequest"}, "generateContentRequest.systemInstruction.parts.0.text"},
		codec.Vertex:            {[]string{"contents", "systemInstruction", "tools"}, "systemInstruction.parts.0.text"},
		// The Responses encoder sends the system prompt as a system message.
		codec.OpenAIResponses: {[]string{"model", "input", "tools"}, "input.0.content.0.text"},
	}
	for client, body := range countRequests {
		for upstream, w := range want {
			t.Run(string(client)+"->"+string(upstream), func(t *testing.T) {
				var req codec.Request
				if err := codec.DecodeCountRequest(client, []byte(body), &req); err != nil {
					t.Fatal(err)
				}
				if client.ModelInPath() && client != codec.VertexAnthropic {
					req.Model = "claude-x"
				}
				out, err := codec.AppendCountRequest(nil, upstream, &req, codec.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]json.RawMessage
				if err := json.Unmarshal(out, &m); err != nil {
					t.Fatalf("invalid JSON %s: %v", out, err)
				}
				if len(m) != len(w.members) {
					t.Errorf("members of %s, want exactly %v", out, w.members)
				}
				for _, k := range w.members {
					if _, ok := m[k]; !ok {
						t.Errorf("%s lacks %s", out, k)
					}
				}
				if got := getString(out, w.system); got != "Be brief." {
					t.Errorf("system prompt at %s is %q in %s", w.system, got, out)
				}
				switch upstream {
				case codec.Gemini:
					if got := getString(out, "generateContentRequest.model"); got != "models/claude-x" {
						t.Errorf("generateContentRequest.model %q", got)
					}
				case codec.AnthropicMessages, codec.VertexAnthropic, codec.OpenAIResponses:
					if got := getString(out, "model"); got != "claude-x" {
						t.Errorf("model %q", got)
					}
				}
				if upstream == codec.VertexAnthropic {
					if got := getString(out, "anthropic_version"); got != anthropic.VertexVersion {
						t.Errorf("anthropic_version %q", got)
					}
				}
			})
		}
	}
}

func TestCountRequestGeminiPlainContents(t *testing.T) {
	var req codec.Request
	if err := codec.DecodeCountRequest(codec.Gemini, []byte(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`), &req); err != nil {
		t.Fatal(err)
	}
	req.Model = "gpt-5"
	out, err := codec.AppendCountRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if getString(out, "model") != "gpt-5" || !json.Valid(out) {
		t.Errorf("got %s", out)
	}
}

func TestCountRequestErrors(t *testing.T) {
	tests := []struct {
		name   string
		client codec.Protocol
		body   string
	}{
		{"chat has no count", codec.OpenAIChat, `{"model":"m","messages":[]}`},
		{"not an object", codec.AnthropicMessages, `[]`},
		{"generateContentRequest not an object", codec.Gemini, `{"generateContentRequest":[]}`},
		{"both forms", codec.Gemini, `{"contents":[],"generateContentRequest":{}}`},
		{"unknown field", codec.AnthropicMessages, `{"model":"m","messages":[{"role":"user","content":"x"}],"bogus":1}`},
	}
	for _, tc := range tests {
		var req codec.Request
		err := codec.DecodeCountRequest(tc.client, []byte(tc.body), &req)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if e, ok := err.(*codec.Error); !ok || e.Status != 400 {
			t.Errorf("%s: %v, want a 400 *Error", tc.name, err)
		}
	}
	var req codec.Request
	req.Model = "m"
	if _, err := codec.AppendCountRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{}); err == nil {
		t.Error("AppendCountRequest(openai-chat) succeeded")
	}
}

func TestCountResponse(t *testing.T) {
	tests := []struct {
		p       codec.Protocol
		body    string
		n       int64
		wantErr bool
	}{
		{codec.AnthropicMessages, `{"input_tokens":42}`, 42, false},
		{codec.VertexAnthropic, `{"input_tokens":42}`, 42, false},
		{codec.Gemini, `{"totalTokens":42,"promptTokensDetails":[{"modality":"TEXT","tokenCount":42}]}`, 42, false},
		{codec.Vertex, `{"totalTokens":42,"totalBillableCharacters":100}`, 42, false},
		{codec.Gemini, `{}`, 0, false},
		{codec.OpenAIResponses, `{"object":"response.input_tokens","input_tokens":42}`, 42, false},
		{codec.OpenAIResponses, `{"object":"response.input_tokens"}`, 0, true},
		{codec.AnthropicMessages, `{"input_tokens":"42"}`, 0, true},
		{codec.AnthropicMessages, `{"input_tokens":-1}`, 0, true},
		{codec.AnthropicMessages, `{"input_tokens":1.5}`, 0, true},
		{codec.Gemini, `oops`, 0, true},
	}
	for _, tc := range tests {
		n, err := codec.DecodeCountResponse(tc.p, []byte(tc.body))
		if (err != nil) != tc.wantErr || n != tc.n {
			t.Errorf("%s %s: %d, %v; want %d, error %v", tc.p, tc.body, n, err, tc.n, tc.wantErr)
		}
		if err != nil && err.(*codec.Error).Status != 502 {
			t.Errorf("%s %s: status %d, want 502", tc.p, tc.body, err.(*codec.Error).Status)
		}
	}
	for p, want := range map[codec.Protocol]string{
		codec.AnthropicMessages: `{"input_tokens":7}`,
		codec.VertexAnthropic:   `{"input_tokens":7}`,
		codec.Gemini:            `{"totalTokens":7}`,
		codec.Vertex:            `{"totalTokens":7}`,
		codec.OpenAIResponses:   `{"object":"response.input_tokens","input_tokens":7}`,
	} {
		if got := string(codec.AppendCountResponse(nil, p, 7)); got != want {
			t.Errorf("AppendCountResponse(%s) = %s, want %s", p, got, want)
		}
	}
}

// getString returns the string at a gjson path of body.
func getString(body []byte, path string) string {
	return gjson.GetBytes(body, path).String()
}
