package codec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
)

// TestCacheBreakpoints carries prompt-cache breakpoints between the
// protocols that have them (Anthropic's cache_control, Bedrock Converse's
// cachePoint), within their shared rules (at most four, the earliest of
// more left out; no lifetime longer than one before it in the prompt's
// order), and reports them dropped toward protocols and models without
// them.
func TestCacheBreakpoints(t *testing.T) {
	const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	tests := []struct {
		name       string
		from, to   codec.Protocol
		model      string
		body       string
		want       map[string]string // gjson path in the encoded body: raw value
		absent     []string          // gjson paths that must not exist
		wantDrop   string
		wantNoDrop bool
	}{
		{name: "anthropic to converse", from: codec.AnthropicMessages, to: codec.Bedrock, model: claude,
			body: `{"model":"m","max_tokens":10,
				"tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral","ttl":"1h"}}],
				"system":[{"type":"text","text":"S1"},{"type":"text","text":"S2","cache_control":{"type":"ephemeral"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"5m"}}]}]}`,
			want: map[string]string{
				"toolConfig.tools.2.cachePoint":   `{"type":"default","ttl":"1h"}`,
				"system.2.cachePoint":             `{"type":"default"}`,
				"messages.0.content.1.cachePoint": `{"type":"default","ttl":"5m"}`,
			},
			wantNoDrop: true},
		{name: "converse to anthropic", from: codec.Bedrock, to: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			body: `{"system":[{"text":"S"},{"cachePoint":{"type":"default"}}],
				"messages":[{"role":"user","content":[{"text":"hi"},{"cachePoint":{"type":"default","ttl":"5m"}}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default","ttl":"1h"}}]}}`,
			want: map[string]string{
				"system.0.cache_control":             `{"type":"ephemeral"}`,
				"messages.0.content.0.cache_control": `{"type":"ephemeral","ttl":"5m"}`,
				"tools.0.cache_control":              `{"type":"ephemeral","ttl":"1h"}`,
			},
			wantNoDrop: true},
		{name: "anthropic automatic caching to converse: a cachePoint after the last block", from: codec.AnthropicMessages, to: codec.Bedrock, model: claude,
			body: `{"model":"m","max_tokens":10,"cache_control":{"type":"ephemeral"},
				"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"two"},{"role":"user","content":"three"}]}`,
			want:       map[string]string{"messages.2.content.1.cachePoint": `{"type":"default"}`},
			wantNoDrop: true},
		{name: "more than four: the earliest are left out", from: codec.Bedrock, to: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			body: `{"system":[{"text":"S"},{"cachePoint":{"type":"default"}}],
				"messages":[{"role":"user","content":[{"text":"1"},{"cachePoint":{"type":"default"}},{"text":"2"},{"cachePoint":{"type":"default"}},
					{"text":"3"},{"cachePoint":{"type":"default"}},{"text":"4"},{"cachePoint":{"type":"default"}}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default"}}]}}`,
			want: map[string]string{
				"messages.0.content.0.cache_control": `{"type":"ephemeral"}`,
				"messages.0.content.3.cache_control": `{"type":"ephemeral"}`,
			},
			absent:   []string{"tools.0.cache_control", "system.0.cache_control", "system.cache_control"},
			wantDrop: "cache breakpoints beyond the upstream's four (the earliest)"},
		{name: "a longer lifetime after a shorter one is shortened", from: codec.AnthropicMessages, to: codec.Bedrock, model: claude,
			body: `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral","ttl":"5m"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]}`,
			want: map[string]string{
				"system.1.cachePoint":             `{"type":"default","ttl":"5m"}`,
				"messages.0.content.1.cachePoint": `{"type":"default","ttl":"5m"}`,
			},
			wantNoDrop: true},
		{name: "a Converse model without prompt caching", from: codec.AnthropicMessages, to: codec.Bedrock, model: "meta.llama3-70b-instruct-v1:0",
			body:     `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
			absent:   []string{"messages.0.content.1"},
			wantDrop: "cache breakpoints (the model takes no cachePoint)"},
		{name: "toward Chat Completions", from: codec.AnthropicMessages, to: codec.OpenAIChat, model: "gpt-5",
			body:     `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
			wantDrop: "cache breakpoints"},
		{name: "toward Gemini", from: codec.Bedrock, to: codec.Gemini, model: "gemini-2.5-flash",
			body:     `{"messages":[{"role":"user","content":[{"text":"hi"},{"cachePoint":{"type":"default"}}]}]}`,
			wantDrop: "cache breakpoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := new(codec.Request)
			if err := codec.DecodeRequest(tt.from, []byte(tt.body), req); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(req.Dropped) > 0 {
				t.Errorf("decoding dropped %v: breakpoints are part of the canonical request", req.Dropped)
			}
			out, err := codec.AppendRequest(nil, tt.to, req, codec.EncodeOptions{Model: tt.model})
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			for path, raw := range tt.want {
				if got := gjson.GetBytes(out, path).Raw; got != raw {
					t.Errorf("%s = %s, want %s in\n%s", path, got, raw, out)
				}
			}
			for _, path := range tt.absent {
				if gjson.GetBytes(out, path).Exists() {
					t.Errorf("%s is set in\n%s", path, out)
				}
			}
			if n := strings.Count(string(out), "cache_control") + strings.Count(string(out), "cachePoint"); n > 4 {
				t.Errorf("%d breakpoints, more than four", n)
			}
			switch {
			case tt.wantNoDrop && len(req.Dropped) > 0:
				t.Errorf("dropped %v", req.Dropped)
			case tt.wantDrop != "" && !slices.Contains(req.Dropped, tt.wantDrop):
				t.Errorf("dropped %v, want %q", req.Dropped, tt.wantDrop)
			}
		})
	}
}

// TestCacheControlErrors holds the breakpoint objects to their protocols'
// grammar.
func TestCacheControlErrors(t *testing.T) {
	for _, c := range []struct {
		p          codec.Protocol
		body, want string
	}{
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"persistent"}}]}]}`, "messages[0].content[0].cache_control.type"},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"cache_control":{"type":"ephemeral","ttl":"2h"}}`, "cache_control.ttl"},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"},"cache_control":"yes"}],"messages":[{"role":"user","content":"x"}]}`, "tools[0].cache_control"},
		{codec.Bedrock, `{"messages":[{"role":"user","content":[{"text":"x"},{"cachePoint":{"type":"default","ttl":"1d"}}]}]}`, "messages[0].content[1].cachePoint.ttl"},
		{codec.Bedrock, `{"messages":[{"role":"user","content":[{"text":"x"},{"cachePoint":{"type":"other"}}]}]}`, "messages[0].content[1].cachePoint.type"},
	} {
		err := codec.DecodeRequest(c.p, []byte(c.body), new(codec.Request))
		e, ok := err.(*codec.Error)
		if !ok || e.Status != 400 || e.Param != c.want {
			t.Errorf("%s %s: %v, want a 400 naming %s", c.p, c.body, err, c.want)
		}
	}
}

// TestPromptCacheKey carries OpenAI's prompt_cache_key and
// prompt_cache_retention between its two APIs, and reports them dropped
// toward Azure, OpenAI-compatible servers and other providers.
func TestPromptCacheKey(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}],"prompt_cache_key":"session-7","prompt_cache_retention":"24h"}`
	responses := `{"model":"m","input":"hi","prompt_cache_key":"session-7","prompt_cache_retention":"24h"}`
	for _, c := range []struct {
		from    codec.Protocol
		body    string
		to      codec.Protocol
		opts    codec.EncodeOptions
		carried bool
	}{
		{codec.OpenAIChat, chat, codec.OpenAIResponses, codec.EncodeOptions{Model: "gpt-5"}, true},
		{codec.OpenAIResponses, responses, codec.OpenAIChat, codec.EncodeOptions{Model: "gpt-5"}, true},
		{codec.OpenAIResponses, responses, codec.OpenAIChat, codec.EncodeOptions{Model: "deepseek-chat", Target: codec.Target{Dialect: &codec.Dialect{Name: "deepseek"}}}, false},
		{codec.OpenAIChat, chat, codec.AzureOpenAIResponses, codec.EncodeOptions{Model: "gpt-5"}, false},
		{codec.OpenAIResponses, responses, codec.AzureOpenAI, codec.EncodeOptions{Model: "gpt-5"}, false},
		{codec.OpenAIChat, chat, codec.AnthropicMessages, codec.EncodeOptions{Model: "claude-sonnet-4-5"}, false},
		{codec.OpenAIChat, chat, codec.Bedrock, codec.EncodeOptions{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}, false},
		{codec.OpenAIResponses, responses, codec.Gemini, codec.EncodeOptions{Model: "gemini-2.5-flash"}, false},
	} {
		req := new(codec.Request)
		if err := codec.DecodeRequest(c.from, []byte(c.body), req); err != nil {
			t.Fatal(err)
		}
		out, err := codec.AppendRequest(nil, c.to, req, c.opts)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c.from, c.to, err)
		}
		key, retention := gjson.GetBytes(out, "prompt_cache_key").Str, gjson.GetBytes(out, "prompt_cache_retention").Str
		dropped := slices.Contains(req.Dropped, "prompt_cache_key") && slices.Contains(req.Dropped, "prompt_cache_retention")
		if c.carried && (key != "session-7" || retention != "24h" || dropped) || !c.carried && (key != "" || retention != "" || !dropped) {
			t.Errorf("%s -> %s (%+v): key %q, retention %q, dropped %v; want carried %v", c.from, c.to, c.opts.Target.Dialect, key, retention, req.Dropped, c.carried)
		}
		if !gjson.ValidBytes(out) {
			t.Errorf("%s -> %s: invalid JSON %s", c.from, c.to, out)
		}
	}
}
