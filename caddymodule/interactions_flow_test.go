package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestInteractionsKeptByTheGateway runs an Interactions client toward a
// Chat upstream through a handler: the answer is stored under its id, a
// GET reads it, a request naming it continues it with the whole history,
// a streamed answer is stored from its events, DELETE removes it, and
// what only Google runs or an unknown id is refused before the upstream.
func TestInteractionsKeptByTheGateway(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	post := func(body string, answer func(w http.ResponseWriter) error) (*httptest.ResponseRecorder, *upstreamCall) {
		return serve(t, h, httptest.NewRequest(http.MethodPost, "/v1beta/interactions", strings.NewReader(body)), answer)
	}
	w, call := post(`{"model":"gemini-2.5-flash","input":"What is 2+2?"}`, jsonAnswer(200, chatOK))
	id := gjson.Get(w.Body.String(), "id").Str
	if w.Code != 200 || id == "" || !call.called {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	// GET answers the interaction's output; with include_input, its
	// input before it.
	get, _ := serve(t, h, httptest.NewRequest(http.MethodGet, "/v1beta/interactions/"+id, nil), jsonAnswer(500, "{}"))
	if get.Code != 200 || gjson.Get(get.Body.String(), "steps.#").Int() != 1 || gjson.Get(get.Body.String(), "steps.0.type").Str != "model_output" {
		t.Fatalf("GET of the stored interaction: %d %s", get.Code, get.Body)
	}
	get, _ = serve(t, h, httptest.NewRequest(http.MethodGet, "/v1beta/interactions/"+id+"?include_input=true", nil), jsonAnswer(500, "{}"))
	if get.Code != 200 || gjson.Get(get.Body.String(), "steps.#").Int() != 2 || gjson.Get(get.Body.String(), "steps.0.type").Str != "user_input" {
		t.Fatalf("GET with include_input: %d %s", get.Code, get.Body)
	}
	w, call = post(`{"model":"gemini-2.5-flash","previous_interaction_id":"`+id+`","input":"And 3+3?"}`, jsonAnswer(200, chatOK))
	if w.Code != 200 || !strings.Contains(call.body, "What is 2+2?") || !strings.Contains(call.body, "And 3+3?") {
		t.Errorf("continuing: %d %s; upstream got %s", w.Code, w.Body, call.body)
	}
	w, _ = post(`{"model":"gemini-2.5-flash","stream":true,"input":"Stream it"}`, sseAnswer(chatStream, 9, nil))
	var streamed string
	for _, line := range strings.Split(w.Body.String(), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && streamed == "" {
			streamed = gjson.Get(data, "interaction.id").Str
		}
	}
	if w.Code != 200 || streamed == "" {
		t.Fatalf("streamed: %d %s", w.Code, w.Body)
	}
	if got, _ := serve(t, h, httptest.NewRequest(http.MethodGet, "/v1beta/interactions/"+streamed, nil), jsonAnswer(500, "{}")); got.Code != 200 {
		t.Errorf("the streamed interaction was not stored: %d %s", got.Code, got.Body)
	}
	del, _ := serve(t, h, httptest.NewRequest(http.MethodDelete, "/v1beta/interactions/"+id, nil), jsonAnswer(500, "{}"))
	if del.Code != 200 {
		t.Errorf("DELETE: %d %s", del.Code, del.Body)
	}
	if get, _ := serve(t, h, httptest.NewRequest(http.MethodGet, "/v1beta/interactions/"+id, nil), jsonAnswer(500, "{}")); get.Code != 404 {
		t.Errorf("GET after DELETE: %d %s", get.Code, get.Body)
	}
	for _, body := range []string{
		`{"model":"gemini-2.5-flash","previous_interaction_id":"` + id + `","input":"again"}`,
		`{"model":"gemini-2.5-flash","previous_interaction_id":7,"input":"x"}`,
		`{"model":"gemini-2.5-flash","background":true,"input":"x"}`,
		`{"agent":"deep-research","input":"x"}`,
	} {
		w, call := post(body, jsonAnswer(200, chatOK))
		if w.Code != 400 || call.called {
			t.Errorf("%s: %d %s (upstream called %v), want a 400 before the upstream", body, w.Code, w.Body, call.called)
		}
	}
	if w, _ := post(`{"model":"gemini-2.5-flash","store":false,"input":"not kept"}`, jsonAnswer(200, chatOK)); w.Code != 200 {
		t.Errorf("store false: %d", w.Code)
	} else if got, _ := serve(t, h, httptest.NewRequest(http.MethodGet, "/v1beta/interactions/"+gjson.Get(w.Body.String(), "id").Str, nil), jsonAnswer(500, "{}")); got.Code != 404 {
		t.Errorf("an interaction asked not to be stored was: %d", got.Code)
	}
}

// TestStoredInteractionRequests answers the other requests on an
// interaction's path: a method other than GET and DELETE, an error answer
// passed on without storing, and, toward an Interactions upstream, the
// request forwarded with the upstream's credential.
func TestStoredInteractionRequests(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	if w, _ := serve(t, h, httptest.NewRequest(http.MethodPut, "/v1beta/interactions/abc", nil), jsonAnswer(500, "{}")); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %d %s", w.Code, w.Body)
	}
	w, _ := serve(t, h, httptest.NewRequest(http.MethodPost, "/v1beta/interactions", strings.NewReader(`{"model":"gemini-2.5-flash","input":"x"}`)),
		jsonAnswer(429, `{"error":{"message":"slow down","type":"rate_limit_error"}}`))
	if w.Code != 429 {
		t.Errorf("an upstream 429: %d %s", w.Code, w.Body)
	}
	up := newTestHandler(t, &Handler{Upstream: "gemini-interactions", APIKey: "g-key"})
	r := httptest.NewRequest(http.MethodGet, "/v1beta/interactions/int_1", nil)
	r.Header.Set("X-Goog-Api-Key", "client-key")
	w, call := serve(t, up, r, jsonAnswer(200, `{"id":"int_1","status":"completed","steps":[]}`))
	if w.Code != 200 || !call.called || !strings.HasSuffix(call.path, "/interactions/int_1") || call.header.Get("X-Goog-Api-Key") != "g-key" {
		t.Errorf("GET toward Google: %d, upstream %s with %v", w.Code, call.path, call.header)
	}
}
