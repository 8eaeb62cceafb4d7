package caddytest

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestInteractionsToolLoopKept runs an Interactions client's tool loop by
// previous_interaction_id toward every upstream of another family,
// streamed and not: the first interaction ends in a function_call, which
// llmbridge must keep with the interaction so that the second request,
// only the function_result and the id, reaches the upstream with the
// text before the call, the call, its id and the result.
func TestInteractionsToolLoopKept(t *testing.T) {
	env := setup(t)
	for _, up := range allProtocols {
		if up.isInteractions() {
			continue // Google keeps them there (TestInteractionsClient).
		}
		for _, stream := range []bool{false, true} {
			name := pairName(geminiInteractions, up)
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				env.mocks.resetAll(t)
				m := env.mocks[up]
				call := newMockCall(up, 1, "get_weather", `{"city":"Paris"}`, 2)
				m.setScenario(textCallAnswer(up, up.defaultModel(), "Checking.", []mockCall{call}, stream))
				first := interactionsPost(t, env.plain[up], `{"model":"`+up.defaultModel()+`","stream":`+boolJSON(stream)+
					`,"tools":[{"type":"function","name":"get_weather","description":"d","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],`+
					`"input":"Weather in Paris?"}`)
				id, callID := interactionsAnswerIDs(first, stream)
				if id == "" || callID == "" {
					t.Fatalf("the first interaction has no id or no call: %s", first)
				}
				m.clearRequests()
				second := interactionsPost(t, env.plain[up], `{"model":"`+up.defaultModel()+`","previous_interaction_id":"`+id+`",`+
					`"input":[{"type":"function_result","call_id":"`+callID+`","name":"get_weather","result":"Sunny."}]}`)
				if gjson.Get(second, "error").Exists() {
					t.Fatalf("continuing the interaction: %s", second)
				}
				rec, _ := m.lastRequest()
				if rec == nil {
					t.Fatal("the second request did not reach the upstream")
				}
				v := viewTools(up, rec.Body)
				if len(v.Calls) != 1 || v.Calls[0].Name != "get_weather" || len(v.Results) != 1 || v.Results[0].Text != "Sunny." {
					t.Errorf("the upstream got calls %+v and results %+v, want the kept call and its result", v.Calls, v.Results)
				}
				if texts := assistantTexts(up, rec.Body); !slices.Contains(texts, "Checking.") {
					t.Errorf("the kept text before the call reached the upstream as %q, want \"Checking.\"", texts)
				}
			})
		}
	}
}

// interactionsPost posts body to an Interactions path of the site at base
// and returns the answer.
func interactionsPost(t *testing.T, base, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1beta/interactions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Goog-Api-Key", clientKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// interactionsAnswerIDs returns the interaction id and the first call's id
// of an answer, JSON or streamed.
func interactionsAnswerIDs(answer string, stream bool) (id, callID string) {
	if !stream {
		for _, s := range gjson.Get(answer, "steps").Array() {
			if s.Get("type").Str == "function_call" && callID == "" {
				callID = s.Get("id").Str
			}
		}
		return gjson.Get(answer, "id").Str, callID
	}
	for _, f := range parseFrames(answer) {
		d := gjson.Parse(f.data)
		if d.Get("event_type").Str == "interaction.created" {
			id = d.Get("interaction.id").Str
		}
		if s := d.Get("step"); s.Get("type").Str == "function_call" && callID == "" {
			callID = s.Get("id").Str
		}
	}
	return id, callID
}

// boolJSON is b as JSON.
func boolJSON(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
