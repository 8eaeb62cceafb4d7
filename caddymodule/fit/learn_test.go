package fit

import (
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// newFitter provisions a fitter of upstream at level, keeping its lessons
// to itself.
func newFitter(t *testing.T, upstream codec.Protocol, level policy.Level) *Fitter {
	t.Helper()
	f := &Fitter{Upstream: upstream, Provider: rules.ProviderFor(upstream, ""), Policy: level, Lessons: new(policy.Lessons),
		DefaultMaxTokens: codec.DefaultMaxTokens, Logger: zap.NewNop()}
	if err := f.Provision(nil, ""); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLearnAndRefit reads a refusal for its lesson and fits the refused
// request again: the fix the policy makes is reported, a fix that changes
// nothing is not retried, a fix the policy does not make is refused, and a
// lesson no form of the request survives returns the refusing adjustment.
func TestLearnAndRefit(t *testing.T) {
	const model = "acme-9"
	topP := func() *codec.Request {
		return &codec.Request{Model: model, TopP: codec.OptFloat{Value: 0.5, Set: true}, Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}}}}
	}
	for _, tc := range []struct {
		name     string
		level    policy.Level
		message  string
		req      func() *codec.Request
		learned  bool
		fixed    bool
		refusing bool
	}{
		{"top_p removed", policy.Safe, "Unsupported parameter: 'top_p' is not supported with this model.", topP, true, true, false},
		{"nothing to fix", policy.Safe, "Unsupported parameter: 'top_p' is not supported with this model.",
			func() *codec.Request { r := topP(); r.TopP = codec.OptFloat{}; return r }, true, false, false},
		{"a change safe does not make", policy.Safe, "Unsupported parameter: 'stop' is not supported with this model.",
			func() *codec.Request { r := topP(); r.StopSequences = []string{"END"}; return r }, true, false, false},
		{"a change lenient makes", policy.Lenient, "Unsupported parameter: 'stop' is not supported with this model.",
			func() *codec.Request { r := topP(); r.StopSequences = []string{"END"}; return r }, true, true, false},
		{"no form reaches the model", policy.Safe, "This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?",
			topP, true, false, true},
		{"nothing known", policy.Safe, "the model is having a bad day", topP, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFitter(t, codec.OpenAIChat, tc.level)
			rule, lesson, lr, ok := f.Learn(model, 400, tc.message)
			if ok != tc.learned {
				t.Fatalf("learned %v, want %v", ok, tc.learned)
			}
			if !ok {
				return
			}
			if lr == nil || lr.Rule != rule || !strings.Contains(strings.Join(lr.Delta.Sources, " "), "learned from the provider's 400 "+tc.message) {
				t.Errorf("lesson record %+v", lr)
			}
			adj, _, refusing, fixed := f.Refit(tc.req(), rule, codec.OpenAIChat, model, lesson, nil)
			if fixed != tc.fixed || (refusing != nil) != tc.refusing {
				t.Fatalf("fixed %v (%v), refusing %v; want %v, %v", fixed, adj, refusing, tc.fixed, tc.refusing)
			}
			if refusing != nil {
				if e := f.RefusalError(model, refusing); e.Status != 400 || !strings.Contains(e.Message, "no form of the request reaches the model") {
					t.Errorf("refusal %+v", e)
				}
			}
			// Kept, the lesson comes before the table, and the next
			// lesson builds on it.
			f.Lessons.Store(model, lr)
			if f.RuleFor(model) != rule {
				t.Error("the kept lesson is not the model's rule")
			}
			if _, _, again, ok := f.Learn(model, 400, tc.message); !ok || again.Like != lr.Like {
				t.Errorf("learning again: %+v, %v", again, ok)
			}
		})
	}
}

// TestCapabilityPolicy decodes and encodes under each policy: lenient
// drops what it can and lists it, strict refuses a loss the drop setting
// does not name, and every rejection names the setting that would let it
// through.
func TestCapabilityPolicy(t *testing.T) {
	// Gemini cannot carry an Anthropic container upload, a capability
	// the encoder can drop; the client's unknown member is the decoder's.
	const unknown = `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"frobnicate":1}`
	for _, level := range []policy.Level{policy.Safe, policy.Lenient, policy.Strict} {
		f := newFitter(t, codec.Gemini, level)
		var req codec.Request
		e := f.DecodeRequest(codec.AnthropicMessages, []byte(unknown), &req, nil)
		if e == nil || e.Class != codec.ClassUnknownField || !strings.Contains(e.Message, "drop frobnicate would remove it") {
			t.Errorf("%s: unknown field: %+v", level, e)
		}
	}

	strict := newFitter(t, codec.OpenAIChat, policy.Strict)
	req := &codec.Request{Model: "gpt-4o", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}}}}
	req.Dropped = []string{"metadata"}
	if _, e := strict.EncodeRequest(nil, codec.OpenAIChat, req, codec.EncodeOptions{Model: "gpt-4o"}, 1); e == nil || e.Param != "metadata" ||
		!strings.Contains(e.Message, "as would drop metadata") || e.Class != codec.ClassHint {
		t.Errorf("strict, a client field dropped: %+v", e)
	}
	req.Dropped = []string{"top_k"}
	if _, e := strict.EncodeRequest(nil, codec.OpenAIChat, req, codec.EncodeOptions{Model: "gpt-4o"}, 0); e == nil || strings.Contains(e.Message, "as would drop") {
		t.Errorf("strict, an encoder's canonical name: %+v", e)
	}
	drop, err := policy.CompileDrop("metadata")
	if err != nil {
		t.Fatal(err)
	}
	strict.Drops = []policy.Drop{drop}
	req.Dropped = []string{"metadata"}
	if _, e := strict.EncodeRequest(nil, codec.OpenAIChat, req, codec.EncodeOptions{Model: "gpt-4o"}, 1); e != nil {
		t.Errorf("strict, a field the drop setting names: %+v", e)
	}
	body, dropped, e := strict.ApplyDrops([]byte(`{"model":"m","metadata":{"a":1}}`))
	if e != nil || string(body) != `{"model":"m"}` || len(dropped) != 1 || dropped[0] != "metadata" {
		t.Errorf("ApplyDrops: %s %v %v", body, dropped, e)
	}
	w := httptest.NewRecorder()
	strict.ReportDropped(w, dropped)
	if got := w.Header().Get("Llmbridge-Dropped"); got != "metadata" {
		t.Errorf("Llmbridge-Dropped = %q", got)
	}
	if e := strict.strictError("messages[0].content[1] (image)", true); e.Param != "messages[0].content[1]" || !strings.Contains(e.Message, "this image content") {
		t.Errorf("strictError of content: %+v", e)
	}

	// explain: a capability error decoded under safe names lenient, and
	// under lenient says it cannot drop it.
	capErr := &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "tools[0]", Class: codec.ClassCapability,
		Capability: codec.Capability{Element: "tools[0]"}, Message: "not carried"}
	if got := newFitter(t, codec.OpenAIChat, policy.Safe).explain(capErr, true, nil); !strings.Contains(got.Message, "on_unsupported lenient would drop it") {
		t.Errorf("safe: %q", got.Message)
	}
	if got := newFitter(t, codec.OpenAIChat, policy.Lenient).explain(capErr, true, nil); !strings.Contains(got.Message, "cannot drop it") {
		t.Errorf("lenient: %q", got.Message)
	}
	if got := newFitter(t, codec.OpenAIChat, policy.Safe).explain(&codec.Error{Message: "plain"}, true, nil); got.Message != "plain" {
		t.Errorf("an error no setting lets through: %q", got.Message)
	}
}

// TestCacheHourRefused looks at a passthrough body's bytes only toward an
// upstream where one of the provider's models lacks the one-hour cache.
func TestCacheHourRefused(t *testing.T) {
	body := []byte(`{"model":"m","system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral","ttl":"1h"}}]}`)
	for _, upstream := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic, codec.BedrockAnthropic} {
		f := newFitter(t, upstream, policy.Safe)
		for _, r := range f.Rules().Rows(f.Provider) {
			for _, on := range r.CacheFiveMinutesOnlyOn {
				if on != string(upstream) {
					continue
				}
				model := strings.ReplaceAll(r.Models[0], "*", "x")
				if !f.CacheHourRefused(upstream, model, body) {
					t.Errorf("%s on %s: the one-hour cache was not found refused", model, upstream)
				}
				if f.CacheHourRefused(upstream, model, []byte(`{"model":"m"}`)) {
					t.Errorf("%s on %s: a body without it was", model, upstream)
				}
			}
		}
	}
	if newFitter(t, codec.OpenAIChat, policy.Safe).CacheHourRefused(codec.OpenAIChat, "gpt-4o", body) {
		t.Error("an upstream without such a model looked at the body")
	}
}
