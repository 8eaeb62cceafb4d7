package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// interactionsHostileCases are Interactions requests that no upstream of
// another family can be sent: each must be a 400 in Google's format whose
// message names the member at fault, before any upstream call.
var interactionsHostileCases = []struct {
	name, input, extra, member string
}{
	{"step without a type", `[{"content":[{"type":"text","text":"Hi"}]}]`, ``, "input[0].type"},
	{"unknown step type", `[{"type":"user_inputs","content":[{"type":"text","text":"Hi"}]}]`, ``, "input[0]"},
	{"content that is a number", `[{"type":"user_input","content":42}]`, ``, "input[0].content"},
	{"content part of an unknown type", `[{"type":"user_input","content":[{"type":"hologram","data":"x"}]}]`, ``, "input[0].content[0]"},
	{"function_call without a name", `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]},` +
		`{"type":"function_call","id":"c1","arguments":{}},{"type":"function_result","call_id":"c1","result":"r"}]`, ``, "input[1]"},
	{"function_call whose arguments are a string", `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]},` +
		`{"type":"function_call","id":"c1","name":"f","arguments":"{}"},{"type":"function_result","call_id":"c1","result":"r"}]`, ``, "input[1].arguments"},
	{"function_result with an unknown call_id", `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]},` +
		`{"type":"function_call","id":"c1","name":"f","arguments":{}},{"type":"function_result","call_id":"c2","result":"r"}]`, ``, "input[2].call_id"},
	{"function_result without a call_id", `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]},` +
		`{"type":"function_call","id":"c1","name":"f","arguments":{}},{"type":"function_result","result":"r"}]`, ``, "input[2].call_id"},
	{"thought with an unknown member", `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]},` +
		`{"type":"thought","signature":"c2ln","mood":"calm"},{"type":"user_input","content":[{"type":"text","text":"And?"}]}]`, ``, "input[1].mood"},
	{"expired previous interaction", `"And?"`, `,"previous_interaction_id":"v1_expired_itest"`, "previous_interaction_id"},
	{"previous interaction that is a number", `"And?"`, `,"previous_interaction_id":7`, "previous_interaction_id"},
}

// TestInteractionsHostileInput sends malformed steps, a function result
// that answers no call, and stored ids that expired or are not ids, from
// an Interactions client toward every upstream of another family: a 400
// INVALID_ARGUMENT in Google's format naming the member, and no upstream
// call. An expired interaction says so and what to do instead.
func TestInteractionsHostileInput(t *testing.T) {
	env := setup(t)
	for _, tc := range interactionsHostileCases {
		for _, up := range allProtocols {
			if up.isInteractions() {
				continue // Google judges what passes through to it.
			}
			t.Run(strings.ReplaceAll(tc.name, " ", "_")+"/"+pairName(geminiInteractions, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				body := `{"model":"` + geminiInteractions.defaultModel() + `","input":` + tc.input + tc.extra + `}`
				resp := do(t, newClientRequest(t, http.MethodPost, env.plain[up], geminiInteractions, "", []byte(body)))
				assertErrorFormat(t, tc.name, geminiInteractions, 400, resp)
				if msg := gjson.GetBytes(resp.Body, "error.message").Str; !strings.Contains(msg, tc.member) {
					t.Errorf("%s: the error %q does not name %s", tc.name, msg, tc.member)
				}
				if tc.name == "expired previous interaction" && !strings.Contains(string(resp.Body), "expired") {
					t.Errorf("%s: the error does not say the interaction may have expired: %s", tc.name, resp.Body)
				}
				env.mocks.assertNoUpstreamCall(t, tc.name)
			})
		}
	}
}
