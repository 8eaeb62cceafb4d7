package caddytest

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// routeRules are the model rules of the routed sites: "alias-<model>" goes
// upstream as <model>, "fixed" as the upstream's default model, anything
// else unchanged.
const routeRules = "\t\tmodel alias-* $1\n\t\tmodel nomatch-* never\n"

// aliasFor is the client model that routeRules rewrite into up's default
// model.
func aliasFor(up proto) string { return "alias-" + up.defaultModel() }

// responseModels returns every model name a client of protocol p sees in a
// response body, or in each event of a streamed one: Chat and Responses
// "model" (Responses events response.model), Anthropic "model"
// (message_start message.model), Gemini "modelVersion".
func responseModels(t *testing.T, p proto, body []byte, stream bool) []string {
	t.Helper()
	pick := func(data []byte) []string {
		root := gjson.ParseBytes(data)
		var got []string
		for _, path := range []string{"model", "response.model", "message.model", "modelVersion", "interaction.model"} {
			if v := root.Get(path); v.Exists() {
				got = append(got, v.String())
			}
		}
		return got
	}
	if !stream {
		return pick(body)
	}
	if p.isAWS() {
		var err error
		if body, err = unframeClientStream(body); err != nil {
			t.Errorf("the answer is not a valid event stream: %v", err)
		}
	}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok || string(data) == "[DONE]" {
			continue
		}
		got = append(got, pick(data)...)
	}
	return got
}

// TestModelRouting sends, for every pair, streamed and not, a model that a
// rule rewrites: the upstream must receive the rewritten model (in the body
// or the path), and the client must see the model it asked for everywhere
// the response names one (a Converse answer names none); with
// response_model upstream it sees the upstream's. Passthrough pairs (one wire family) are edited the same way.
func TestModelRouting(t *testing.T) {
	env := setup(t)
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			for _, stream := range []bool{false, true} {
				for _, upstreamShown := range []bool{false, true} {
					name := pairName(cp, up)
					if stream {
						name += "/stream"
					}
					base := env.routed[up]
					if upstreamShown {
						name += "/response_model_upstream"
						base = env.routedUp[up]
					}
					t.Run(name, func(t *testing.T) {
						env.mocks.resetAll(t)
						alias, want := aliasFor(up), up.defaultModel()
						var req *http.Request
						if stream {
							req = newClientStreamRequestFor(t, base, cp, alias)
						} else {
							req = newClientRequest(t, http.MethodPost, base, cp, alias, minimalBody(cp, alias))
						}
						resp := do(t, req)
						if resp.Status != http.StatusOK {
							t.Fatalf("status %d, want 200; body %s", resp.Status, resp.Body)
						}
						rec, hits := env.mocks[up].lastRequest()
						if hits != 1 {
							t.Fatalf("the upstream received %d requests, want 1", hits)
						}
						if got := rec.model(up); got != want {
							t.Errorf("upstream model = %q, want %q (path %s)", got, want, rec.Path)
						}
						if strings.Contains(string(rec.Body), alias) || strings.Contains(rec.Path, alias) {
							t.Errorf("the client's model %q reached the upstream: %s %s", alias, rec.Path, rec.Body)
						}
						if !cp.answersNameModel() {
							return
						}
						models := responseModels(t, cp, resp.Body, stream)
						if len(models) == 0 {
							t.Fatalf("the response names no model: %s", resp.Body)
						}
						for _, m := range models {
							if !upstreamShown && m != alias {
								t.Errorf("response model %q, want the client's %q; body %s", m, alias, resp.Body)
							}
							if upstreamShown && m == alias {
								t.Errorf("response model %q, want the upstream's with response_model upstream; body %s", m, resp.Body)
							}
						}
					})
				}
			}
		}
	}
}

// TestModelRoutingNoMatch checks that a model no rule matches passes
// through unchanged, and the passthrough response bytes are the upstream's.
func TestModelRoutingNoMatch(t *testing.T) {
	env := setup(t)
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				model := cp.defaultModel()
				resp := do(t, newClientRequest(t, http.MethodPost, env.routed[up], cp, model, minimalBody(cp, model)))
				if resp.Status != http.StatusOK {
					t.Fatalf("status %d, want 200; body %s", resp.Status, resp.Body)
				}
				rec, _ := env.mocks[up].lastRequest()
				if got, want := rec.model(up), upstreamModel(cp, up, model); got != want {
					t.Errorf("upstream model = %q, want %q", got, want)
				}
			})
		}
	}
}

// TestModelMatcher sends, from every client protocol, streamed and not, a
// claude-* model and another model to the site whose llm_model matcher
// routes claude-* to the Anthropic mock and the rest to the OpenAI mock:
// each must reach its upstream only, with the body whole (the mocks
// validate it), and answer 200 in the client's protocol.
func TestModelMatcher(t *testing.T) {
	env := setup(t)
	cases := []struct {
		model string
		up    proto
	}{
		{"claude-sonnet-4-5", anthropicMsgs},
		{"gpt-4o", openaiChat},
		{"claude", openaiChat}, // the pattern needs the dash
	}
	for _, cp := range allProtocols {
		for _, c := range cases {
			for _, stream := range []bool{false, true} {
				name := pairName(cp, c.up) + "/" + c.model
				if stream {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					env.mocks.resetAll(t)
					model := c.model
					if cp == vertexAnthropic {
						model += "@20250929"
					}
					var req *http.Request
					if stream {
						req = newClientStreamRequestFor(t, env.split, cp, model)
					} else {
						req = newClientRequest(t, http.MethodPost, env.split, cp, model, minimalBody(cp, model))
					}
					resp := do(t, req)
					if resp.Status != http.StatusOK {
						t.Fatalf("status %d, want 200; body %s", resp.Status, resp.Body)
					}
					for _, p := range allProtocols {
						rec, hits := env.mocks[p].lastRequest()
						switch {
						case p == c.up && hits != 1:
							t.Errorf("the %s upstream received %d requests, want 1", p, hits)
						case p == c.up && rec.model(p) != model:
							t.Errorf("the %s upstream received model %q, want %q", p, rec.model(p), model)
						case p != c.up && hits != 0:
							t.Errorf("the %s upstream received %d requests, want none", p, hits)
						}
					}
				})
			}
		}
	}
}
