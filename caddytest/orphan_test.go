package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestOrphanToolResults sends, from clients of three protocols, a history
// whose tool result answers no tool call to every upstream of another
// family: llmbridge answers 400 in the client's format naming the result,
// and no upstream is called.
func TestOrphanToolResults(t *testing.T) {
	env := setup(t)
	bodies := map[proto]string{
		openaiChat: `{"model":"m","messages":[{"role":"user","content":"go"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"call_9","content":"ok"}]}`,
		openaiResponses: `{"model":"m","input":[{"role":"user","content":"go"},` +
			`{"type":"function_call_output","call_id":"call_9","output":"ok"}]}`,
		anthropicMsgs: `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"go"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]}]}`,
	}
	for cp, body := range bodies {
		for _, up := range allProtocols {
			if cp.family() == up.family() {
				continue
			}
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				resp := do(t, newClientRequest(t, http.MethodPost, env.plain[up], cp, "m", []byte(body)))
				assertErrorFormat(t, "orphan result", cp, http.StatusBadRequest, resp)
				if msg := gjson.GetBytes(resp.Body, "error.message").Str; !strings.Contains(msg, "_9") {
					t.Errorf("the error does not name the result's call id: %s", resp.Body)
				}
				env.mocks.assertNoUpstreamCall(t, "orphan result")
			})
		}
	}
}
