package fit

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestFitPassthrough checks the fitter's part of fitting a passthrough
// body (its rule table, the codec's FitBody, a body it cannot read); the
// codecs' edits for every family are TestFitBody's (codec/rules).
func TestFitPassthrough(t *testing.T) {
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
			name: "a body llmbridge cannot read passes as it is", upstream: codec.AnthropicMessages, model: "claude-opus-4-7",
			body: `{"model":"x","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"some_future_field":true,"temperature":0.1}`,
			want: map[string]string{"temperature": "0.1", "some_future_field": "true"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Fitter{Upstream: tt.upstream, Provider: rules.ProviderFor(tt.upstream, ""), Logger: zap.NewNop(), DefaultMaxTokens: codec.DefaultMaxTokens}
			if err := f.Provision(nil, ""); err != nil {
				t.Fatal(err)
			}
			out, adj, err := f.FitPassthrough([]byte(tt.body), tt.upstream, tt.upstream, tt.model)
			if err != nil {
				t.Fatal(err)
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

// TestAdaptiveForBetweenTools writes thinking type between_tools, which
// one model takes, as adaptive, and leaves other bodies alone.
func TestAdaptiveForBetweenTools(t *testing.T) {
	body := []byte(`{"model":"m","thinking":{"type":"between_tools"}}`)
	out, ok := AdaptiveForBetweenTools(body)
	if !ok || gjson.GetBytes(out, "thinking.type").Str != "adaptive" || gjson.GetBytes(body, "thinking.type").Str != "between_tools" {
		t.Errorf("%s %v (the body given must not change: %s)", out, ok, body)
	}
	plain := []byte(`{"model":"m","thinking":{"type":"adaptive"}}`)
	if out, ok := AdaptiveForBetweenTools(plain); ok || string(out) != string(plain) {
		t.Errorf("a body without between_tools changed: %s", out)
	}
}

// TestFitPassthroughLessons applies what the model was seen to refuse that
// the canonical request cannot hold: thinking type between_tools written
// as adaptive, once a lesson says the model refuses it.
func TestFitPassthroughLessons(t *testing.T) {
	f := newFitter(t, codec.AnthropicMessages, policy.Safe)
	const model = "claude-opus-4-7"
	body := []byte(`{"model":"m","max_tokens":2000,"thinking":{"type":"between_tools"},"messages":[{"role":"user","content":"hi"}]}`)
	f.Lessons.Store(model, &policy.Lesson{Rule: f.RuleFor(model), AdaptiveForBetweenTools: true})
	out, adj, err := f.FitPassthrough(body, codec.AnthropicMessages, codec.AnthropicMessages, model)
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(out, "thinking.type").Str != "adaptive" || !slices.ContainsFunc(adj, func(a rules.Adjustment) bool { return a.Rule == rules.LessonBetweenTools }) {
		t.Errorf("fitted %s with %v", out, adj)
	}
}
