package rules

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
)

// TestFitBody fits passthrough bodies of every family to model rules: each
// codec's FitBody rewrites what Fit changed in the decoded request, and
// nothing else (cache_control, display, unknown fields stay as they were).
func TestFitBody(t *testing.T) {
	tests := []struct {
		name     string
		upstream codec.Protocol
		model    string
		body     string
		// want are gjson paths of the fitted body and their raw JSON
		// ("" for absent).
		want     map[string]string
		adjusted int
	}{
		{
			name: "claude code budget toward opus 4.7", upstream: codec.AnthropicMessages, model: "claude-opus-4-7",
			body: `{"model":"alias","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999,"display":"omitted"},` +
				`"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}],"temperature":0.2}`,
			want: map[string]string{"thinking.type": `"adaptive"`, "thinking.budget_tokens": "", "thinking.display": `"omitted"`,
				"output_config.effort": `"xhigh"`, "temperature": "", "system.0.cache_control.type": `"ephemeral"`},
			adjusted: 2,
		},
		{
			name: "adaptive with max effort toward opus 4.1", upstream: codec.VertexAnthropic, model: "claude-opus-4-1",
			body:     `{"max_tokens":200000,"thinking":{"type":"adaptive"},"output_config":{"effort":"max"},"messages":[{"role":"user","content":"hi"}]}`,
			want:     map[string]string{"thinking.type": `"enabled"`, "thinking.budget_tokens": "31999", "output_config.effort": "", "max_tokens": "32000"},
			adjusted: 3,
		},
		{
			name: "chat effort toward a non-reasoning model", upstream: codec.OpenAIChat, model: "gpt-4o",
			body:     `{"model":"alias","reasoning_effort":"high","max_tokens":50000,"messages":[{"role":"user","content":"hi"}]}`,
			want:     map[string]string{"reasoning_effort": "", "max_tokens": "16384", "max_completion_tokens": ""},
			adjusted: 2,
		},
		{
			name: "responses summary toward a non-reasoning model", upstream: codec.OpenAIResponses, model: "gpt-4.1",
			body:     `{"model":"alias","reasoning":{"effort":"low","summary":"auto"},"input":"hi"}`,
			want:     map[string]string{"reasoning": ""},
			adjusted: 1,
		},
		{
			name: "gemini level toward 2.5 flash", upstream: codec.Gemini, model: "gemini-2.5-flash",
			body:     `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"topK":40,"thinkingConfig":{"thinkingLevel":"HIGH","includeThoughts":true}}}`,
			want:     map[string]string{"generationConfig.thinkingConfig.thinkingLevel": "", "generationConfig.thinkingConfig.thinkingBudget": "24576", "generationConfig.topK": "40"},
			adjusted: 0,
		},
		{
			name: "gemini 3 budget and unsigned call", upstream: codec.Vertex, model: "gemini-3-pro-preview",
			body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"g","response":{}}}]}],` +
				`"generationConfig":{"thinkingConfig":{"thinkingBudget":8192}}}`,
			want: map[string]string{"generationConfig.thinkingConfig.thinkingBudget": "", "generationConfig.thinkingConfig.thinkingLevel": `"LOW"`,
				"contents.1.parts.0.thoughtSignature": `"skip_thought_signature_validator"`, "contents.1.parts.1.thoughtSignature": ""},
			adjusted: 1,
		},
		{
			name: "chat sampling and limits toward o3", upstream: codec.OpenAIChat, model: "o3",
			body: `{"model":"a","temperature":0.5,"top_p":0.9,"presence_penalty":0.3,"frequency_penalty":0.2,"max_completion_tokens":500000,` +
				`"reasoning_effort":"minimal","messages":[{"role":"user","content":"hi"}]}`,
			want: map[string]string{"temperature": "", "top_p": "", "presence_penalty": "", "frequency_penalty": "",
				"max_completion_tokens": "100000", "max_tokens": "", "reasoning_effort": `"low"`},
			adjusted: 6,
		},
		{
			name: "responses sampling, limit and effort toward o3", upstream: codec.OpenAIResponses, model: "o3",
			body:     `{"model":"a","temperature":0.5,"top_p":0.9,"max_output_tokens":500000,"reasoning":{"effort":"minimal"},"input":"hi"}`,
			want:     map[string]string{"temperature": "", "top_p": "", "max_output_tokens": "100000", "reasoning.effort": `"low"`},
			adjusted: 4,
		},
		{
			name: "gemini budget 0 and limit toward 2.5 pro", upstream: codec.Gemini, model: "gemini-2.5-pro",
			body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":900000,"stopSequences":["x"],` +
				`"presencePenalty":0.5,"thinkingConfig":{"thinkingBudget":0}}}`,
			want: map[string]string{"generationConfig.thinkingConfig.thinkingBudget": "128", "generationConfig.maxOutputTokens": "65536",
				"generationConfig.stopSequences": `["x"]`, "generationConfig.presencePenalty": "0.5"},
			adjusted: 2,
		},
		{
			name: "gemini minimal level toward 3 pro", upstream: codec.Gemini, model: "gemini-3-pro-preview",
			body:     `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"thinkingConfig":{"thinkingLevel":"MINIMAL"}}}`,
			want:     map[string]string{"generationConfig.thinkingConfig.thinkingLevel": `"LOW"`},
			adjusted: 1,
		},
		{
			name: "anthropic sampling and limit toward opus 4.7", upstream: codec.AnthropicMessages, model: "claude-opus-4-7",
			body:     `{"model":"x","max_tokens":900000,"temperature":0.5,"top_p":0.9,"top_k":5,"stop_sequences":["x"],"messages":[{"role":"user","content":"hi"}]}`,
			want:     map[string]string{"max_tokens": "128000", "temperature": "", "top_p": "", "top_k": "", "stop_sequences": `["x"]`},
			adjusted: 4,
		},
		{
			name: "a body llmbridge cannot read passes as it is", upstream: codec.AnthropicMessages, model: "claude-opus-4-7",
			body: `{"model":"x","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"some_future_field":true,"temperature":0.1}`,
			want: map[string]string{"temperature": "0.1", "some_future_field": "true"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			out := []byte(tt.body)
			var adj []Adjustment
			if err := codec.DecodeRequest(tt.upstream, out, &req); err == nil {
				provider := ProviderFor(tt.upstream, "")
				opts := Options{Protocol: tt.upstream, Provider: provider, Model: tt.model, DefaultMaxTokens: codec.DefaultMaxTokens}
				var target codec.Target
				adj, target = Fit(&req, Builtin().Lookup(provider, tt.model), &opts, nil)
				params := make([]string, len(adj))
				for i := range adj {
					params[i] = adj[i].Param
				}
				if out, err = codec.FitBody(tt.upstream, out, &req, params, target); err != nil {
					t.Fatal(err)
				}
			}
			for path, want := range tt.want {
				if got := gjson.GetBytes(out, path).Raw; got != want {
					t.Errorf("%s = %s, want %s\n%s", path, got, want, out)
				}
			}
			if len(adj) != tt.adjusted {
				var s []string
				for i := range adj {
					s = append(s, adj[i].String())
				}
				t.Errorf("%d adjustments, want %d: %s", len(adj), tt.adjusted, strings.Join(s, "; "))
			}
		})
	}
}
