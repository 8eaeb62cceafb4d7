package caddytest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	gi "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
)

// steps returns conv's turns as typed steps, the whole history.
func interactionsSteps(conv conversation) []gi.Step {
	var steps []gi.Step
	for _, t := range conv.Turns {
		content := []gi.Content{gi.NewContent(gi.TextContent{Text: t.Text})}
		if t.Role == "assistant" {
			steps = append(steps, gi.NewStep(gi.ModelOutputStep{Content: content}))
		} else {
			steps = append(steps, gi.NewStep(gi.UserInputStep{Content: content}))
		}
	}
	return steps
}

// body is the create request for conv, continuing prev when it is set.
func (interactionsClient) body(conv conversation, input gi.InteractionsInput, prev string, stream bool) operations.CreateInteractionRequest {
	temp, topP, maxTokens := float32(conv.Temperature), float32(conv.TopP), int(conv.MaxTokens)
	m := gi.CreateModelInteraction{
		Model: gi.Model(conv.Model), Input: &input, SystemInstruction: &conv.System,
		GenerationConfig: &gi.GenerationConfig{Temperature: &temp, TopP: &topP, MaxOutputTokens: &maxTokens},
	}
	if prev != "" {
		m.PreviousInteractionID = &prev
	}
	if stream {
		m.Stream = &stream
	}
	return operations.CreateInteractionRequest{Body: operations.NewCreateInteractionRequestBody(m)}
}

// generate sends conv as the whole history.
func (c interactionsClient) generate(ctx context.Context, base string, conv conversation) (result, error) {
	out, _, err := c.create(ctx, base, conv, gi.NewInteractionsInput(interactionsSteps(conv)), "")
	return out, err
}

// create creates an interaction and returns the result and its id.
func (c interactionsClient) create(ctx context.Context, base string, conv conversation, input gi.InteractionsInput, prev string) (result, string, error) {
	client, err := c.newClient(ctx, base, "", sdkTransport)
	if err != nil {
		return result{}, "", err
	}
	res, err := client.Interactions.Create(ctx, c.body(conv, input, prev, false), noRetries)
	if err != nil {
		return result{}, "", err
	}
	it := res.Interaction
	if it == nil {
		return result{}, "", fmt.Errorf("no interaction in the answer")
	}
	var out result
	if it.OutputText != nil {
		out.Text = *it.OutputText
	}
	out.Stop = interactionsStop(string(it.Status))
	if u := it.Usage; u != nil {
		out.InputTokens, out.OutputTokens = interactionsUsage(u.TotalInputTokens, u.TotalOutputTokens, u.TotalThoughtTokens)
	}
	id := ""
	if it.ID != nil {
		id = *it.ID
	}
	return out, id, nil
}

// streamID creates a streamed interaction and returns what its events
// add up to, and the interaction's id.
func (c interactionsClient) streamID(ctx context.Context, base string, conv conversation) (result, string, error) {
	client, err := c.newClient(ctx, base, "", sdkTransport)
	if err != nil {
		return result{}, "", err
	}
	res, err := client.Interactions.Create(ctx, c.body(conv, gi.NewInteractionsInput(interactionsSteps(conv)), "", true), noRetries)
	if err != nil {
		return result{}, "", err
	}
	s := res.InteractionSSEStreamEvent
	if s == nil {
		return result{}, "", fmt.Errorf("the answer is not a stream")
	}
	defer s.Close()
	var out result
	var text strings.Builder
	id := ""
	for s.Next() {
		ev := s.Value()
		if ev == nil {
			continue
		}
		d := ev.Data
		switch {
		case d.InteractionCreatedEvent != nil:
			id = d.InteractionCreatedEvent.Interaction.ID
		case d.StepDelta != nil:
			if t := d.StepDelta.Delta.TextDelta; t != nil {
				text.WriteString(t.Text)
			}
		case d.InteractionCompletedEvent != nil:
			i := d.InteractionCompletedEvent.Interaction
			out.Stop = interactionsStop(string(i.Status))
			if u := i.Usage; u != nil {
				out.InputTokens, out.OutputTokens = interactionsUsage(u.TotalInputTokens, u.TotalOutputTokens, u.TotalThoughtTokens)
			}
		case d.ErrorEvent != nil:
			return out, id, fmt.Errorf("error event: %+v", d.ErrorEvent.Error)
		}
	}
	out.Text = text.String()
	return out, id, s.Err()
}

// interactionsStop normalises an interaction's status.
func interactionsStop(status string) string {
	switch status {
	case "completed":
		return "end"
	case "incomplete":
		return "max_tokens"
	case "requires_action":
		return "tool_use"
	}
	return "other:" + status
}

// interactionsUsage returns usage in the suite's inclusive meaning: the
// output count excludes thoughts.
func interactionsUsage(in, out, thought *int) (int64, int64) {
	v := func(p *int) int64 {
		if p == nil {
			return 0
		}
		return int64(*p)
	}
	return v(in), v(out) + v(thought)
}

// interactionsEnv loads the shared Caddyfile with two more sites, whose
// upstream is the Interactions mock on the Gemini API and on Vertex AI,
// and returns the environment, the mock and the Gemini API's site (the
// Vertex AI one is interactionsSites[vertexInteractions]).
func interactionsEnv(t *testing.T) (*testEnv, *interactionsMock, string) {
	t.Helper()
	env := setup(t)
	m, err := interactionsUpstream()
	if err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	site := fmt.Sprintf("http://localhost:%d", ports[0])
	interactionsSites = map[proto]string{geminiInteractions: site, vertexInteractions: fmt.Sprintf("http://localhost:%d", ports[1])}
	loadCaddyfile(t, env.caddyfile+fmt.Sprintf("\n%s {\n\tllmbridge {\n\t\tupstream gemini-interactions\n\t}\n\treverse_proxy %s\n}\n", site, m.addr)+
		fmt.Sprintf("\n%s {\n\tllmbridge {\n\t\tupstream vertex-interactions\n%s\t}\n\treverse_proxy %s\n}\n", interactionsSites[vertexInteractions], cloudSettings(vertex), m.addr))
	return env, m, site
}

// interactionsSites are the sites of interactionsEnv by upstream.
var interactionsSites map[proto]string

// TestInteractionsClient sends the shared conversation from genai's
// Interactions client through every upstream, as the whole history, JSON
// and streamed, and continues it by previous_interaction_id: llmbridge
// keeps the interaction toward upstreams of other families and passes the
// id through toward the Interactions API.
func TestInteractionsClient(t *testing.T) {
	env, im, imSite := interactionsEnv(t)
	c := interactionsClient{}
	conv := sharedConversation(gemini.defaultModel())
	for _, up := range append(append([]proto(nil), allProtocols...), geminiInteractions, vertexInteractions) {
		t.Run(pairName(geminiInteractions, up), func(t *testing.T) {
			want := fmt.Sprintf("¡Hola! from %s via llmbridge", up)
			base := imSite
			if up == vertexInteractions {
				base = interactionsSites[vertexInteractions]
			}
			if up == geminiInteractions || up == vertexInteractions {
				im.reset(want, "completed")
			} else {
				env.mocks.resetAll(t)
				env.mocks[up].setReply(reply{Text: want, Stop: "end", Usage: defaultUsage})
				base = env.plain[up]
			}
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			for _, streamed := range []bool{false, true} {
				var res result
				var err error
				if streamed {
					res, _, err = c.streamID(ctx, base, conv)
				} else {
					res, err = c.generate(ctx, base, conv)
				}
				if err != nil {
					t.Fatalf("streamed %v: %s", streamed, describeErr(err))
				}
				if res.Text != want || res.Stop != "end" || res.InputTokens != 15 || res.OutputTokens != 10 {
					t.Errorf("streamed %v: %+v, want %q, end, 15/10 tokens", streamed, res, want)
				}
				if up != geminiInteractions && up != vertexInteractions {
					rec, _ := env.mocks[up].lastRequest()
					if rec != nil {
						checkUpstreamConversation(t, pairName(geminiInteractions, up), up, rec, upstreamConversation(geminiInteractions, up, conv))
					}
				}
			}

			// A streamed interaction is kept too.
			_, sid, err := c.streamID(ctx, base, conv)
			if err != nil || sid == "" {
				t.Fatalf("stream: %v, id %q", describeErr(err), sid)
			}
			if res, _, err := c.create(ctx, base, conv, gi.NewInteractionsInput("Thanks."), sid); err != nil || res.Text != want {
				t.Errorf("continuing a streamed interaction: %+v %v", res, describeErr(err))
			}

			// Multi-turn by previous_interaction_id.
			first := conversation{Model: conv.Model, System: conv.System, Temperature: conv.Temperature, TopP: conv.TopP, MaxTokens: conv.MaxTokens}
			_, id, err := c.create(ctx, base, first, gi.NewInteractionsInput(conv.Turns[0].Text), "")
			if err != nil || id == "" {
				t.Fatalf("turn 1: %v, id %q", describeErr(err), id)
			}
			res, _, err := c.create(ctx, base, first, gi.NewInteractionsInput(conv.Turns[2].Text), id)
			if err != nil || res.Text != want {
				t.Fatalf("turn 2: %+v %v", res, describeErr(err))
			}
			// The stored interaction, read, and deleted where llmbridge
			// keeps it.
			get := func(method string, query ...string) (int, string) {
				req, _ := http.NewRequestWithContext(ctx, method, base+"/v1beta/interactions/"+id+strings.Join(query, ""), nil)
				req.Header.Set("X-Goog-Api-Key", clientKey)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			// GET answers the interaction's own steps: its output, and
			// with include_input its input first (turn 2's, not turn 1's).
			if status, body := get(http.MethodGet, "?include_input=true"); status != 200 || gjson.Get(body, "steps.0.type").Str != "user_input" ||
				!strings.Contains(gjson.Get(body, "steps").Raw, want) || strings.Contains(body, conv.Turns[0].Text) && up != geminiInteractions && up != vertexInteractions {
				t.Errorf("GET of the stored interaction with its input: %d %s", status, body)
			}
			if status, body := get(http.MethodGet); status != 200 || strings.Contains(body, `"user_input"`) && up != geminiInteractions && up != vertexInteractions ||
				!strings.Contains(gjson.Get(body, "steps").Raw, want) {
				t.Errorf("GET of the stored interaction: %d %s", status, body)
			}
			if up == geminiInteractions || up == vertexInteractions {
				last, _ := im.last()
				if last.Get("previous_interaction_id").Str != id {
					t.Errorf("the Interactions upstream got no previous_interaction_id: %s", last.Raw)
				}
				if v := im.violations(); len(v) > 0 {
					t.Errorf("protocol violations: %q", v)
				}
				return
			}
			rec, _ := env.mocks[up].lastRequest()
			got := viewRequest(up, rec).Turns
			wantTurns := []turn{conv.Turns[0], {"assistant", want}, conv.Turns[2]}
			if fmt.Sprint(got) != fmt.Sprint(wantTurns) {
				t.Errorf("turn 2 reached the upstream as\n  %s\nwant\n  %s", formatTurns(got), formatTurns(wantTurns))
			}

			if status, body := get(http.MethodDelete); status != 200 {
				t.Errorf("DELETE: %d %s", status, body)
			}
			if status, body := get(http.MethodGet); status != 404 || gjson.Get(body, "error.code").Str != "NOT_FOUND" {
				t.Errorf("GET after DELETE: %d %s", status, body)
			}
			// Continuing a deleted interaction is a 400 in Google's format.
			_, _, err = c.create(ctx, base, first, gi.NewInteractionsInput("again"), id)
			if err == nil || !strings.Contains(err.Error(), "was not found") {
				t.Errorf("continuing a deleted interaction: %v", describeErr(err))
			}
		})
	}
}

// TestInteractionsGoogleOnly checks that what only Google runs is a 400
// in Google's format toward another upstream, before any upstream call.
func TestInteractionsGoogleOnly(t *testing.T) {
	env, _, _ := interactionsEnv(t)
	for _, body := range []string{`{"model":"m","input":"Hi","background":true}`, `{"agent":"deep-research-pro-preview","input":"Hi"}`} {
		env.mocks.resetAll(t)
		resp, err := http.Post(env.plain[anthropicMsgs]+"/v1beta/interactions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || gjson.GetBytes(b, "error.code").Str != "INVALID_ARGUMENT" || !strings.Contains(string(b), "Google's servers only") {
			t.Errorf("%s: %d %s", body, resp.StatusCode, b)
		}
		env.mocks.assertNoUpstreamCall(t, body)
	}
}

// TestInteractionsUpstream sends the shared conversation from every
// client SDK to the Interactions API: the whole history as typed steps,
// with store false.
func TestInteractionsUpstream(t *testing.T) {
	_, im, _ := interactionsEnv(t)
	conv := sharedConversation(gemini.defaultModel())
	for _, up := range []proto{geminiInteractions, vertexInteractions} {
		site := interactionsSites[up]
		streamers := streamingClients()
		for cp, c := range sdkClients() {
			interactionsUpstreamPair(t, im, site, cp, up, c, streamers[cp], conv)
		}
	}
}

// interactionsUpstreamPair sends conv from client c to the Interactions
// upstream up at site, and streamed with s.
func interactionsUpstreamPair(t *testing.T, im *interactionsMock, site string, cp, up proto, c sdkClient, s streamingClient, conv conversation) {
	t.Run(pairName(cp, up), func(t *testing.T) {
		want := fmt.Sprintf("¡Hola! from the Interactions API to %s", cp)
		im.reset(want, "completed")
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		conv.Model = cp.defaultModel()
		res, err := c.generate(ctx, site, conv)
		if err != nil {
			t.Fatalf("%s", describeErr(err))
		}
		if res.Text != want || res.Stop != "end" || res.InputTokens != 15 || res.OutputTokens != 10 {
			t.Errorf("%+v, want %q, end and 15/10 tokens", res, want)
		}
		body, n := im.last()
		if n != 1 {
			t.Errorf("%d upstream requests", n)
		}
		// Toward the Interactions API, llmbridge keeps nothing there for
		// another family's client (store false); an Interactions client's
		// own body passes through as it was sent.
		wantStore := gjson.False
		if cp.isInteractions() {
			wantStore = gjson.Null
		}
		if body.Get("store").Type != wantStore || body.Get("system_instruction").Str != conv.System ||
			len(body.Get("input").Array()) != 3 || body.Get("input.1.type").Str != "model_output" ||
			body.Get("generation_config.max_output_tokens").Int() != conv.MaxTokens {
			t.Errorf("upstream body %s", body.Raw)
		}
		sr, err := s.stream(ctx, site, conv, streamOptions{})
		if err != nil {
			t.Fatalf("stream: %s", describeErr(err))
		}
		if sr.Text != want || !sr.Terminal || sr.Stop != "end" || sr.Deltas < 2 {
			t.Errorf("stream: %+v, want %q in deltas, complete, end", sr, want)
		}
		if body, _ := im.last(); !body.Get("stream").Bool() || body.Get("store").Type != wantStore {
			t.Errorf("streamed upstream body %s", body.Raw)
		}
		if v := im.violations(); len(v) > 0 {
			t.Errorf("protocol violations: %q", v)
		}
	})
}

// TestInteractionsUpstreamFailures checks what clients get when the
// Interactions API fails: a 429 in their own error format, and, for every
// streaming client, an error at the end of its stream in its own protocol
// when the upstream's breaks off between step.start and step.stop or
// sends an error event after content.
func TestInteractionsUpstreamFailures(t *testing.T) {
	_, im, site := interactionsEnv(t)
	conv := sharedConversation(gemini.defaultModel())
	markers := map[proto]string{anthropicMsgs: `"rate_limit_error"`, openaiChat: `"rate_limit_error"`, gemini: `"RESOURCE_EXHAUSTED"`}
	paths := map[proto]string{anthropicMsgs: "/v1/messages", openaiChat: "/v1/chat/completions", gemini: "/v1beta/models/gemini-2.5-flash:generateContent"}
	bodies := map[proto]string{
		anthropicMsgs: `{"model":"gemini-2.5-flash","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`,
		openaiChat:    `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"Hi"}]}`,
		gemini:        `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`,
	}
	for cp, marker := range markers {
		t.Run(pairName(cp, geminiInteractions)+"/quota", func(t *testing.T) {
			im.reset("unused", "completed")
			im.failWith("quota")
			req, _ := http.NewRequest(http.MethodPost, site+paths[cp], strings.NewReader(bodies[cp]))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+clientKey)
			req.Header.Set("X-Api-Key", clientKey)
			req.Header.Set("X-Goog-Api-Key", clientKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), marker) {
				t.Errorf("%d %s, want 429 with %s", resp.StatusCode, b, marker)
			}
		})
	}
	streamers := streamingClients()
	for _, cp := range allProtocols {
		for _, fault := range []string{"cut", "error-event"} {
			t.Run(pairName(cp, geminiInteractions)+"/"+fault, func(t *testing.T) {
				im.reset("¡Hola! from a stream that fails", "completed")
				im.failWith(fault)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				c := conv
				c.Model = cp.defaultModel()
				sr, err := streamers[cp].stream(ctx, site, c, streamOptions{})
				if err == nil || sr.Terminal {
					t.Errorf("the stream ended cleanly: %+v", sr)
				}
				if fault == "error-event" && err != nil && !strings.Contains(describeErr(err), "quota") {
					t.Errorf("the error does not say what the upstream said: %s", describeErr(err))
				}
			})
		}
	}
}

// TestInteractionsClientFailures checks what an Interactions client gets
// when another upstream fails: Google's error format with the status
// name, and an error event (no data: [DONE]) when the upstream's stream
// breaks off.
func TestInteractionsClientFailures(t *testing.T) {
	env, _, _ := interactionsEnv(t)
	post := func(t *testing.T, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, env.plain[anthropicMsgs]+"/v1beta/interactions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Goog-Api-Key", clientKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	t.Run("rate limited", func(t *testing.T) {
		env.mocks.resetAll(t)
		env.mocks[anthropicMsgs].setScenario(scenario{Status: http.StatusTooManyRequests, Header: http.Header{"Content-Type": {"application/json"}},
			Body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`})
		status, body := post(t, `{"model":"claude-sonnet-4-20250514","input":"Hi"}`)
		if status != http.StatusTooManyRequests || gjson.Get(body, "error.code").Str != "RESOURCE_EXHAUSTED" ||
			gjson.Get(body, "error.message").Str != "slow down" {
			t.Errorf("%d %s", status, body)
		}
	})
	t.Run("stream broken off", func(t *testing.T) {
		env.mocks.resetAll(t)
		env.mocks[anthropicMsgs].setScenario(scenario{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\"," +
				"\"model\":\"claude-sonnet-4-20250514\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"})
		status, body := post(t, `{"model":"claude-sonnet-4-20250514","input":"Hi","stream":true}`)
		if status != http.StatusOK || !strings.Contains(body, `"event_type":"step.delta"`) || !strings.Contains(body, "event: error") ||
			strings.Contains(body, "[DONE]") {
			t.Errorf("%d %s", status, body)
		}
	})
}
