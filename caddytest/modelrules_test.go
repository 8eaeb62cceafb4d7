package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// ruleModels are model names per upstream protocol, one for every row of
// the rule table (its first glob with the wildcards taken out: a name the
// row matches), so that TestModelRules covers every model of the table.
// Converse's are the Bedrock ids of Anthropic's rows: Claude is the
// family of Bedrock whose rules the table has.
func ruleModels(up proto) []string {
	var out []string
	provider := rules.ProviderFor(codec.Protocol(up), "")
	if up == bedrockConverse {
		provider = "anthropic"
	}
	seen := map[string]bool{}
	for _, row := range rules.Builtin().Rows(provider) {
		m := strings.ReplaceAll(row.Models[0], "*", "")
		if up == vertexAnthropic && strings.HasPrefix(m, "claude-sonnet-4-5") {
			m += "@20250929" // a Vertex id
		}
		if up == bedrockConverse && m != "" && !strings.HasSuffix(m, "-") {
			m = "anthropic." + m + "-v1:0"
		}
		if m != "" && !seen[m] && !strings.HasSuffix(m, "-") {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// agentBodies are requests shaped like the real agent CLIs' (reasoning on,
// sampling settings, a tool loop whose history came from another
// provider), per client protocol; %MODEL% is replaced.
var agentBodies = map[proto][]string{
	anthropicMsgs: {
		// Claude Code: a large thinking budget and max_tokens, a tool loop.
		`{"model":"%MODEL%","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999},"stream":false,
		  "tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],
		  "messages":[{"role":"user","content":"run it"},
		    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"echo hi"}}]},
		    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"hi"}]}]}`,
		// An Anthropic client asking for the most effort with sampling set.
		`{"model":"%MODEL%","max_tokens":200000,"thinking":{"type":"adaptive"},"output_config":{"effort":"max"},"temperature":0.3,"top_p":0.9,"top_k":40,
		  "messages":[{"role":"user","content":"Hi"}]}`,
	},
	gemini: {
		// Gemini CLI: sampling, topK, a thinking budget, a call by id.
		`{"contents":[{"role":"user","parts":[{"text":"run it"}]},
		   {"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"echo hi"}}}]},
		   {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"hi"}}}]}],
		  "tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"}}}}]}],
		  "generationConfig":{"temperature":0,"topP":1,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}}}`,
		`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":300000,"thinkingConfig":{"thinkingLevel":"HIGH"}}}`,
	},
	openaiResponses: {
		// Codex: developer instructions, high effort with a summary, a tool loop.
		`{"model":"%MODEL%","store":false,"stream":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"xhigh","summary":"auto"},
		  "tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}},"strict":false}],
		  "input":[{"type":"message","role":"developer","content":"be brief"},{"type":"message","role":"user","content":"run it"},
		    {"type":"function_call","call_id":"call_1","name":"exec_command","arguments":"{\"cmd\":\"echo hi\"}"},
		    {"type":"function_call_output","call_id":"call_1","output":"hi"}]}`,
		`{"model":"%MODEL%","input":"Hi","reasoning":{"effort":"none"},"temperature":0.2,"max_output_tokens":500000}`,
	},
	openaiChat: {
		// Qwen Code: sampling and max_tokens, a tool loop without reasoning.
		`{"model":"%MODEL%","max_tokens":300000,"temperature":0,"top_p":0.95,"reasoning_effort":"minimal",
		  "tools":[{"type":"function","function":{"name":"run_shell_command","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}],
		  "messages":[{"role":"system","content":"be brief"},{"role":"user","content":"run it"},
		    {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"run_shell_command","arguments":"{\"command\":\"echo hi\"}"}}]},
		    {"role":"tool","tool_call_id":"call_1","content":"hi"}]}`,
		`{"model":"%MODEL%","messages":[{"role":"user","content":"Hi"}],"reasoning_effort":"high","presence_penalty":0.5,"temperature":2.5}`,
	},
}

// TestModelRules sends agent-shaped requests of every client protocol to
// every upstream (passthrough pairs too: the routing makes their bodies
// fitted), for every model of the rule table
// (the routed sites rewrite "alias-<model>" to <model>), against mocks that
// enforce the model's reject-level rules as the provider would: every
// request must be fitted so that the provider accepts it.
func TestModelRules(t *testing.T) {
	env := setup(t)
	for _, cp := range []proto{anthropicMsgs, gemini, openaiResponses, openaiChat} {
		for _, up := range allProtocols {
			for _, model := range ruleModels(up) {
				for i, tmpl := range agentBodies[cp] {
					t.Run(pairName(cp, up)+"/"+model+"/"+string(rune('a'+i)), func(t *testing.T) {
						env.mocks.resetAll(t)
						m := env.mocks[up]
						m.mu.Lock()
						m.check = func(body []byte) []string { return enforceModelRules(up, model, body) }
						m.mu.Unlock()
						alias := "alias-" + model
						req := newClientRequest(t, http.MethodPost, env.routed[up], cp, alias, []byte(strings.ReplaceAll(tmpl, "%MODEL%", alias)))
						resp := do(t, req)
						rec, hits := m.lastRequest()
						switch {
						case resp.Status == http.StatusOK:
						case hits == 0:
							// llmbridge's own refusal of what the pair cannot
							// carry (top_k toward OpenAI, say): in the client's
							// format, never left for the provider.
							assertErrorFormat(t, "refused request", cp, http.StatusBadRequest, resp)
							if b := string(resp.Body); !strings.Contains(b, "cannot be expressed") && !strings.Contains(b, "does not accept the request as it is") {
								t.Errorf("refused for another reason than a capability or a model rule: %s", b)
							}
							t.Logf("refused before the upstream: %s", resp.Body)
						default:
							t.Fatalf("HTTP %d: %s\nupstream request: %s", resp.Status, resp.Body, rec.Body)
						}
						if adj := resp.Header.Get("Llmbridge-Adjusted"); adj != "" {
							t.Logf("Llmbridge-Adjusted: %s", adj)
						}
					})
				}
			}
		}
	}
}

// TestDialectChatClient sends a Chat client's request with a developer
// message and max_completion_tokens to a DeepSeek-dialect Chat upstream:
// the body is translated (not passed through) so that DeepSeek gets the
// system role and max_tokens it takes.
func TestDialectChatClient(t *testing.T) {
	env := setup(t)
	env.mocks.resetAll(t)
	m := env.mocks[openaiChat]
	body := `{"model":"deepseek-v4-flash","max_completion_tokens":100,"messages":[{"role":"developer","content":"be brief"},{"role":"user","content":"Hi"}]}`
	resp := do(t, newClientRequest(t, http.MethodPost, env.dialect, openaiChat, "deepseek-v4-flash", []byte(body)))
	if resp.Status != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.Status, resp.Body)
	}
	rec, _ := m.lastRequest()
	root := gjson.ParseBytes(rec.Body)
	if got := root.Get("messages.0.role").String(); got != "system" {
		t.Errorf("messages[0].role = %q, want system: %s", got, rec.Body)
	}
	if root.Get("max_completion_tokens").Exists() || root.Get("max_tokens").Int() != 100 {
		t.Errorf("output limit not written as max_tokens: %s", rec.Body)
	}
}

// TestModelRulesPolicy: an adjustment is made and reported under the
// default policy and refused, in the client's format naming the rule,
// under strict; a change of what the model is asked (stop sequences toward
// o3) is refused under safe.
func TestModelRulesPolicy(t *testing.T) {
	env := setup(t)
	body := `{"model":"claude-sonnet-4-5","temperature":0.5,"top_p":0.9,"messages":[{"role":"user","content":"Hi"}]}`

	env.mocks.resetAll(t)
	resp := do(t, newClientRequest(t, http.MethodPost, env.plain[anthropicMsgs], openaiChat, "claude-sonnet-4-5", []byte(body)))
	if resp.Status != http.StatusOK {
		t.Fatalf("safe: HTTP %d: %s", resp.Status, resp.Body)
	}
	if got := resp.Header.Get("Llmbridge-Adjusted"); got != "top_p removed (claude-sonnet-4-5 takes temperature or top_p, not both)" {
		t.Errorf("Llmbridge-Adjusted = %q", got)
	}
	if rec, _ := env.mocks[anthropicMsgs].lastRequest(); gjson.GetBytes(rec.Body, "top_p").Exists() {
		t.Errorf("top_p reached the upstream: %s", rec.Body)
	}

	env.mocks.resetAll(t)
	resp = do(t, newClientRequest(t, http.MethodPost, env.policies["strict"], openaiChat, "claude-sonnet-4-5", []byte(body)))
	assertErrorFormat(t, "strict", openaiChat, http.StatusBadRequest, resp)
	if msg := gjson.GetBytes(resp.Body, "error.message").Str; !strings.Contains(msg, "anthropic.sampling.temperature-xor-top_p") ||
		!strings.Contains(msg, "claude-sonnet-4-5") || gjson.GetBytes(resp.Body, "error.param").Str != "top_p" {
		t.Errorf("strict: %s", resp.Body)
	}
	env.mocks.assertNoUpstreamCall(t, "strict refusal")

	env.mocks.resetAll(t)
	stop := `{"model":"o3","stop":["END"],"messages":[{"role":"user","content":"Hi"}]}`
	resp = do(t, newClientRequest(t, http.MethodPost, env.plain[openaiResponses], openaiChat, "o3", []byte(stop)))
	assertErrorFormat(t, "safe change", openaiChat, http.StatusBadRequest, resp)
	if msg := gjson.GetBytes(resp.Body, "error.message").Str; !strings.Contains(msg, "openai.stop.unsupported") || !strings.Contains(msg, "lenient") {
		t.Errorf("safe change: %s", resp.Body)
	}
	env.mocks.assertNoUpstreamCall(t, "safe refusal of a change")
}
