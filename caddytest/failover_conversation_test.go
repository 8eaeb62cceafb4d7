package caddytest

import (
	"context"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// TestFailoverConversation continues conversations on a failover site
// whose first target answers the first turn and fails the second: the
// second target gets the whole conversation, over HTTP
// (previous_response_id of a stored response) and over a WebSocket (the
// connection's last response, store false).
func TestFailoverConversation(t *testing.T) {
	env, fe := setupFailover(t)
	chain := failoverChains["anthropic"]
	first, second := chain[0], chain[1]
	overloaded := &targetFault{status: 529, header: errorHeader(first, 529), body: nativeError(first, 529, "Overloaded")}
	model := openaiResponses.defaultModel()
	reset := func() {
		env.mocks.resetAll(t)
		for _, f := range fe.faulty {
			f.set(nil)
		}
	}
	check := func(t *testing.T) {
		t.Helper()
		rec, _ := env.mocks[second].lastRequest()
		if hits, _ := fe.faulty[second].seen(); hits != 1 || rec == nil {
			t.Fatalf("the second target received %d requests, want 1", hits)
		}
		for _, want := range []string{"First question", "Olá from " + string(first), "Second question"} {
			if !strings.Contains(string(rec.Body), want) {
				t.Errorf("the second target's request lacks %q: %s", want, rec.Body)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()

	t.Run("http", func(t *testing.T) {
		reset()
		env.mocks[first].setReply(reply{Text: "Olá from " + string(first) + "!", Stop: "end", Usage: defaultUsage})
		c := openai.NewClient(openaiopt.WithBaseURL(fe.sites["anthropic"]+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
		r1, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("First question")}})
		if err != nil {
			t.Fatalf("turn 1: %s", describeErr(err))
		}
		fe.faulty[first].set(overloaded)
		env.mocks[second].setReply(reply{Text: "From the second target", Stop: "end", Usage: defaultUsage})
		if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: model, PreviousResponseID: openai.String(r1.ID),
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Second question")}}); err != nil {
			t.Fatalf("turn 2: %s", describeErr(err))
		}
		check(t)
	})

	t.Run("websocket", func(t *testing.T) {
		reset()
		env.mocks[first].setReply(reply{Text: "Olá from " + string(first) + "!", Stop: "end", Usage: defaultUsage})
		c := dialResponses(t, fe.sites["anthropic"])
		events := socketTurn(t, c, map[string]any{"model": model, "store": false, "input": "First question"})
		id := events[len(events)-1].Get("response.id").Str
		fe.faulty[first].set(overloaded)
		env.mocks[second].setReply(reply{Text: "From the second target", Stop: "end", Usage: defaultUsage})
		events = socketTurn(t, c, map[string]any{"model": model, "store": false, "previous_response_id": id, "input": "Second question"})
		if last := events[len(events)-1]; last.Get("type").Str != "response.completed" {
			t.Fatalf("turn 2 ended with %s", last.Raw)
		}
		check(t)
		_ = c.Close(websocket.StatusNormalClosure, "")
	})
}
