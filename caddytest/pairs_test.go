package caddytest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// callTimeout bounds every client call; all upstreams are local.
const callTimeout = 10 * time.Second

// pairName names a client->upstream pair as the subtests do.
func pairName(client, upstream proto) string { return string(client) + "->" + string(upstream) }

// TestPairs sends the shared conversation from every client SDK through
// every upstream protocol, non-streaming, and checks what the upstream
// received and what the client got back, for a natural end of turn and for
// an output cut by max tokens.
func TestPairs(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				for _, stop := range []string{"end", "max_tokens"} {
					runPair(t, env, clients[cp], up, stop)
				}
			})
		}
	}
}

// runPair makes one call for the pair and checks both sides.
func runPair(t *testing.T, env *testEnv, c sdkClient, up proto, stop string) {
	cp := c.protocol()
	name := fmt.Sprintf("%s (upstream stop %s)", pairName(cp, up), stop)
	m := env.mocks[up]
	m.clearRequests()
	want := reply{Text: fmt.Sprintf("¡Hola! from %s via llmbridge (%s)", up, stop), Stop: stop, Usage: defaultUsage}
	if stop == "max_tokens" {
		// Output cut at the client's limit, no cache, some reasoning.
		want.Usage = usage{Input: 42, Output: 321, Reasoning: 21}
	}
	m.setReply(want)

	conv := sharedConversation(cp.defaultModel())
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.generate(ctx, env.plain[up], conv)
	if err != nil {
		t.Errorf("%s: the client got an error: %s", name, describeErr(err))
		return
	}

	rec, hits := m.lastRequest()
	if hits != 1 {
		t.Errorf("%s: the upstream received %d requests, want 1", name, hits)
	}
	if rec != nil {
		checkUpstreamConversation(t, name, up, rec, upstreamConversation(cp, up, conv))
	}

	if res.Text != want.Text {
		t.Errorf("%s: client text = %q, want %q", name, res.Text, want.Text)
	}
	if res.Stop != stop {
		t.Errorf("%s: client stop reason = %q, want %q", name, res.Stop, stop)
	}
	if res.InputTokens != want.Usage.Input || res.OutputTokens != want.Usage.Output {
		t.Errorf("%s: client usage = %d input / %d output tokens, want %d / %d (upstream reported %+v; inclusive meaning: cache reads in input, reasoning in output)",
			name, res.InputTokens, res.OutputTokens, want.Usage.Input, want.Usage.Output, want.Usage)
	}
}

// checkUpstreamConversation checks that the upstream request of protocol up
// carries conv intact: model, system prompt, turns in order with roles and
// text, temperature, top_p and max tokens.
func checkUpstreamConversation(t *testing.T, name string, up proto, rec *recordedRequest, conv conversation) {
	t.Helper()
	v := viewRequest(up, rec)
	if v.Model != conv.Model {
		t.Errorf("%s: upstream model = %q, want %q", name, v.Model, conv.Model)
	}
	if v.System != conv.System {
		t.Errorf("%s: upstream system prompt = %q, want %q", name, v.System, conv.System)
	}
	if !reflect.DeepEqual(v.Turns, conv.Turns) {
		t.Errorf("%s: upstream turns =\n  %s\nwant\n  %s", name, formatTurns(v.Turns), formatTurns(conv.Turns))
	}
	if v.Temperature == nil || *v.Temperature != conv.Temperature {
		t.Errorf("%s: upstream temperature = %s, want %v", name, fmtPtr(v.Temperature), conv.Temperature)
	}
	if v.TopP == nil || *v.TopP != conv.TopP {
		t.Errorf("%s: upstream top_p = %s, want %v", name, fmtPtr(v.TopP), conv.TopP)
	}
	if v.MaxTokens == nil || *v.MaxTokens != conv.MaxTokens {
		t.Errorf("%s: upstream max tokens = %s, want %d", name, fmtPtr(v.MaxTokens), conv.MaxTokens)
	}
	if !reflect.DeepEqual(v.StopSequences, conv.StopSequences) {
		t.Errorf("%s: upstream stop sequences = %q, want %q", name, v.StopSequences, conv.StopSequences)
	}
	if t.Failed() {
		t.Logf("%s: upstream request body: %s", name, rec.Body)
	}
}

func formatTurns(ts []turn) string {
	var b []string
	for _, t := range ts {
		b = append(b, fmt.Sprintf("%s: %q", t.Role, t.Text))
	}
	return strings.Join(b, "\n  ")
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// TestUntranslatableParameters checks that a parameter the upstream
// protocol cannot carry is rejected with a 400 in the client's format that
// names the field, before any upstream call.
func TestUntranslatableParameters(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	cases := []struct {
		name     string
		client   proto
		upstream proto
		field    string
		edit     func(*conversation)
	}{
		{"top_k to OpenAI Chat", anthropicMsgs, openaiChat, "top_k", func(c *conversation) { c.TopK = 40 }},
		{"stop sequences to Responses", openaiChat, openaiResponses, "stop", func(c *conversation) { c.StopSequences = []string{"\n\n", "END"} }},
	}
	for _, tc := range cases {
		t.Run(pairName(tc.client, tc.upstream)+"/"+tc.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			conv := sharedConversation(tc.client.defaultModel())
			tc.edit(&conv)
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			_, err := clients[tc.client].generate(ctx, env.plain[tc.upstream], conv)
			if err == nil {
				t.Fatalf("%s: the request succeeded; want a 400 naming %s", tc.name, tc.field)
			}
			if status, ok := sdkErrorStatus(err); !ok || status != 400 {
				t.Errorf("%s: client error = %s, want HTTP 400", tc.name, describeErr(err))
			}
			if msg := sdkErrorMessage(err); !strings.Contains(msg, tc.field) {
				t.Errorf("%s: error message %q does not name the field %q", tc.name, msg, tc.field)
			}
			env.mocks.assertNoUpstreamCall(t, tc.name)
		})
	}
}
