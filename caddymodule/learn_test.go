package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttemptRewind: the header reverse_proxy copied from a discarded
// answer is gone after rewind, and what was there before stays.
func TestAttemptRewind(t *testing.T) {
	w := httptest.NewRecorder()
	w.Header().Set("Server", "Caddy")
	w.Header().Set("Llmbridge-Adjusted", "a")
	at := newAttempt(w)
	defer at.release()
	w.Header().Add("Server", "upstream")
	w.Header().Set("X-Request-Id", "1")
	at.rewind()
	want := http.Header{"Server": {"Caddy"}, "Llmbridge-Adjusted": {"a"}}
	if !reflect.DeepEqual(w.Header(), want) {
		t.Errorf("header = %v, want %v", w.Header(), want)
	}
	at.release()
	at.release()
}

// TestServeLearnsFromRefusal: a translated request refused with a 400 that
// teaches a fix is sent once more with it, the refusal's header is gone,
// and the next request to the model is fitted before it is sent; strict
// passes the refusal on.
func TestServeLearnsFromRefusal(t *testing.T) {
	const refusal = `{"error":{"message":"Unsupported parameter: 'top_p' is not supported with this model.","type":"invalid_request_error","param":"top_p","code":"unsupported_parameter"}}`
	for _, policy := range []string{"safe", "strict"} {
		// Lessons are kept per provider: each policy asks its own model.
		model := "acme-7-" + policy
		ok := `{"id":"chatcmpl-1","object":"chat.completion","model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`
		body := `{"model":"` + model + `","max_tokens":10,"top_p":0.5,"messages":[{"role":"user","content":"Hi"}]}`
		t.Run(policy, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat", OnUnsupported: policy})
			calls := 0
			answer := func(w http.ResponseWriter) error {
				calls++
				if calls == 1 {
					return jsonAnswer(400, refusal, "X-Request-Id", "first")(w)
				}
				return jsonAnswer(200, ok, "X-Request-Id", "second")(w)
			}
			req := func() *http.Request {
				r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
				r.Header.Set("X-Api-Key", "k")
				return r
			}
			w, call := serve(t, h, req(), answer)
			if policy == "strict" {
				if w.Code != 400 || calls != 1 || !strings.Contains(w.Body.String(), "top_p") {
					t.Fatalf("strict: HTTP %d after %d calls: %s", w.Code, calls, w.Body)
				}
				return
			}
			if w.Code != 200 || calls != 2 {
				t.Fatalf("HTTP %d after %d calls: %s", w.Code, calls, w.Body)
			}
			if strings.Contains(call.body, "top_p") {
				t.Errorf("the retry sent top_p: %s", call.body)
			}
			if got := w.Header().Values("X-Request-Id"); len(got) != 1 || got[0] != "second" {
				t.Errorf("X-Request-Id = %q: the refused answer's header stayed", got)
			}
			if got := w.Header().Get("Llmbridge-Adjusted"); !strings.Contains(got, "learned from the provider's 400") {
				t.Errorf("Llmbridge-Adjusted = %q", got)
			}
			w, call = serve(t, h, req(), answer)
			if w.Code != 200 || calls != 3 || strings.Contains(call.body, "top_p") {
				t.Errorf("second request: HTTP %d after %d calls, body %s", w.Code, calls, call.body)
			}
		})
	}
}

// TestServeLearnsFromRefusalPassthrough: the same for a passthrough pair,
// whose refused body is edited in place for the retry.
func TestServeLearnsFromRefusalPassthrough(t *testing.T) {
	const refusal = `{"type":"error","error":{"type":"invalid_request_error","message":"` + "`temperature` and `top_p` cannot both be specified for this model. Please use only one." + `"}}`
	const ok = `{"id":"msg","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	body := `{"model":"claude-x","max_tokens":10,"temperature":0.5,"top_p":0.9,"messages":[{"role":"user","content":"Hi"}]}`
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	calls := 0
	answer := func(w http.ResponseWriter) error {
		calls++
		if calls == 1 {
			return jsonAnswer(400, refusal)(w)
		}
		return jsonAnswer(200, ok)(w)
	}
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
		r.Header.Set("X-Api-Key", "k")
		r.Header.Set("Anthropic-Version", "2023-06-01")
		return r
	}
	w, call := serve(t, h, req(), answer)
	if w.Code != 200 || calls != 2 || strings.Contains(call.body, "top_p") || !strings.Contains(call.body, `"temperature":0.5`) {
		t.Fatalf("HTTP %d after %d calls, sent %s: %s", w.Code, calls, call.body, w.Body)
	}
	w, call = serve(t, h, req(), answer)
	if w.Code != 200 || calls != 3 || strings.Contains(call.body, "top_p") {
		t.Errorf("second request: HTTP %d after %d calls, sent %s", w.Code, calls, call.body)
	}
}

// BenchmarkAttempt is what every request pays for errors that teach: the
// response header noted before next and the note released.
func BenchmarkAttempt(b *testing.B) {
	w := httptest.NewRecorder()
	w.Header().Set("Server", "Caddy")
	w.Header().Set("Llmbridge-Adjusted", "temperature removed (x)")
	b.ReportAllocs()
	for b.Loop() {
		at := newAttempt(w)
		at.release()
	}
}

// TestLessonsSurviveReload: a lesson one handler learned is kept for the
// handler a configuration reload provisions in its place (the same
// provider), whose first request to the model is fitted without a retry.
func TestLessonsSurviveReload(t *testing.T) {
	const model = "acme-8-reload"
	const refusal = `{"error":{"message":"Unsupported parameter: 'top_p' is not supported with this model.","type":"invalid_request_error","param":"top_p","code":"unsupported_parameter"}}`
	ok := `{"id":"chatcmpl-1","object":"chat.completion","model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`
	body := `{"model":"` + model + `","max_tokens":10,"top_p":0.5,"messages":[{"role":"user","content":"Hi"}]}`
	calls := 0
	answer := func(w http.ResponseWriter) error {
		calls++
		if calls == 1 {
			return jsonAnswer(400, refusal)(w)
		}
		return jsonAnswer(200, ok)(w)
	}
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
		r.Header.Set("X-Api-Key", "k")
		return r
	}
	before := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	if w, _ := serve(t, before, req(), answer); w.Code != 200 || calls != 2 {
		t.Fatalf("the first handler: HTTP %d after %d calls: %s", w.Code, calls, w.Body)
	}
	after := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	w, call := serve(t, after, req(), answer)
	if w.Code != 200 || calls != 3 || strings.Contains(call.body, "top_p") {
		t.Errorf("the reloaded handler: HTTP %d after %d calls, body %s", w.Code, calls, call.body)
	}
	if got := w.Header().Get("Llmbridge-Adjusted"); !strings.Contains(got, "top_p removed") || strings.Contains(got, "learned from") {
		t.Errorf("Llmbridge-Adjusted = %q, want top_p removed without a retry", got)
	}
}

// TestLearnShared keeps, as the fleet's learner of its provider, a lesson
// another instance learned, read from the same refusal, and ignores a
// refusal that teaches nothing.
func TestLearnShared(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	model := "acme-shared-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	(*sharedLearner)(h).LearnShared(model, 400, "the model is having a bad day")
	if h.fitter.Lessons.Lookup(model) != nil {
		t.Fatal("a refusal that teaches nothing was kept")
	}
	(*sharedLearner)(h).LearnShared(model, 400, "Unsupported parameter: 'top_p' is not supported with this model.")
	lr := h.fitter.Lessons.Lookup(model)
	if lr == nil {
		t.Fatal("another instance's lesson was not kept")
	}
	if !slices.Contains(lr.Rule.Rejects, "top_p") && lr.Rule.Sampling == "" {
		t.Errorf("the kept rule %+v does not refuse top_p", lr.Rule)
	}
}
