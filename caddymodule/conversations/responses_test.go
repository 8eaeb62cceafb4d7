package conversations

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
)

// answeringHost is a handler that answers each request with the next of
// its answers (a completed response with id resp_<n>), as JSON or as a
// stream when the request asks for one, and notes what it was sent and
// what it refused. As the handler does once it has decoded a request, it
// continues the conversation the request names and says whether its
// answer is kept; with resolve, it leaves both to Turn.Resolve, as a
// failover site does.
type answeringHost struct {
	resolve bool
	n       int
	bodies  []string
	refused []*codec.Error
}

func (h *answeringHost) ServeContinued(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	turn := TurnOf(w)
	var cerr *codec.Error
	if h.resolve {
		b, cerr = turn.Resolve(r.Context(), b)
	} else {
		if prev := gjson.GetBytes(b, "previous_response_id").Str; prev != "" {
			b, cerr = turn.Continue(r.Context(), prev, b)
		}
		turn.SetStore(gjson.GetBytes(b, "store").Type != gjson.False)
	}
	if cerr != nil {
		h.refused = append(h.refused, cerr)
		w.WriteHeader(cerr.Status)
		return nil
	}
	h.bodies = append(h.bodies, string(b))
	h.n++
	resp := `{"id":"resp_` + string(rune('0'+h.n)) + `","status":"completed","output":[{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"answer ` + string(rune('0'+h.n)) + `"}]}]}`
	if gjson.GetBytes(b, "stream").Bool() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "event: response.created\ndata: {}\n\nevent: response.completed\ndata: {\"response\":"+resp+"}\n\n")
		return nil
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, resp)
	return nil
}

// failingConversations is a store that cannot be reached.
type failingConversations struct{ sessions.Conversations }

func (failingConversations) Conversation(context.Context, string) ([]byte, error) {
	return nil, errors.New("connection refused")
}

// TestResponsesServe keeps an answered conversation and continues it by
// previous_response_id, in its client's scope only; store: false keeps
// nothing, an unknown id is refused with previous_response_not_found, a
// store that cannot be read with a 503, and a stream's answer is kept as a
// JSON one is.
func TestResponsesServe(t *testing.T) {
	for _, resolve := range []bool{false, true} {
		name := "decoding host"
		if resolve {
			name = "resolving host"
		}
		t.Run(name, func(t *testing.T) { testResponsesServe(t, resolve) })
	}
}

func testResponsesServe(t *testing.T, resolve bool) {
	c := &Responses{Store: sessions.NewMemoryConversations(1<<20, time.Hour), MaxEventSize: 1 << 16, MaxAnswerSize: 1 << 20, Logger: zap.NewNop()}
	host := &answeringHost{resolve: resolve}
	serve := func(body, keyName, credential string) int {
		t.Helper()
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/v1/responses", nil)
		if err := c.Serve(w, r, nil, host, []byte(body), keyName, credential); err != nil {
			t.Fatal(err)
		}
		return w.Code
	}
	for _, tc := range []struct {
		name, body, key, cred string
		status                int
		sentHas               string // what the host is sent, when served
		refused               string // the refusal's code or status
	}{
		{"first turn", `{"model":"m","input":"one"}`, "team", "", 200, `"input":"one"`, ""},
		{"continued", `{"model":"m","previous_response_id":"resp_1","input":"two"}`, "team", "", 200, `answer 1`, ""},
		{"continued streamed", `{"model":"m","previous_response_id":"resp_2","input":"three","stream":true}`, "team", "", 200, `answer 2`, ""},
		{"continued after a stream", `{"model":"m","previous_response_id":"resp_3","input":"four","store":false}`, "team", "", 200, `answer 3`, ""},
		{"not kept after store false", `{"model":"m","previous_response_id":"resp_4","input":"five"}`, "team", "", 400, "", "previous_response_not_found"},
		{"another key's", `{"model":"m","previous_response_id":"resp_1","input":"x"}`, "other", "", 400, "", "previous_response_not_found"},
		{"a credential's scope", `{"model":"m","previous_response_id":"resp_1","input":"x"}`, "", "sk-1", 400, "", "previous_response_not_found"},
		{"not a response id", `{"model":"m","previous_response_id":"msg_1","input":"x"}`, "team", "", 400, "", "previous_response_not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			served, refused := len(host.bodies), len(host.refused)
			if got := serve(tc.body, tc.key, tc.cred); got != tc.status {
				t.Fatalf("status %d, want %d", got, tc.status)
			}
			if tc.refused != "" {
				if len(host.refused) != refused+1 || host.refused[refused].Code != tc.refused {
					t.Fatalf("refusals %+v, want one %s", host.refused[refused:], tc.refused)
				}
				return
			}
			if len(host.bodies) != served+1 || !strings.Contains(host.bodies[served], tc.sentHas) {
				t.Fatalf("the host was sent %q, want it to hold %s", host.bodies[served:], tc.sentHas)
			}
		})
	}
	if e := host.refused[len(host.refused)-1]; !strings.Contains(e.Message, "not the id of a response") {
		t.Errorf("a non-response id is not explained: %q", e.Message)
	}

	c.Store = failingConversations{c.Store}
	if got := serve(`{"model":"m","previous_response_id":"resp_1","input":"x"}`, "team", ""); got != http.StatusServiceUnavailable {
		t.Errorf("an unreachable store: status %d, want 503", got)
	}
}

// TestAppendScope scopes conversations by client key, else by the
// credential's digest, else one shared scope, each ending in a NUL so that
// no scope is a prefix of another's keys.
func TestAppendScope(t *testing.T) {
	for _, tc := range []struct{ key, cred, want string }{
		{"team", "", "kteam\x00"},
		{"team", "sk-1", "kteam\x00"},
		{"", "", "-\x00"},
	} {
		if got := string(AppendScope(nil, tc.key, tc.cred)); got != tc.want {
			t.Errorf("AppendScope(%q, %q) = %q, want %q", tc.key, tc.cred, got, tc.want)
		}
	}
	a, b := string(AppendScope(nil, "", "sk-1")), string(AppendScope(nil, "", "sk-2"))
	if a == b || !strings.HasPrefix(a, "c") || len(a) != 1+32+1 || strings.Contains(a, "sk-1") {
		t.Errorf("credential scopes %q and %q: want distinct digests, never the credential", a, b)
	}
}
