package caddytest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// interactionsMock is an Interactions API server as Google documents it:
// POST /v1beta/interactions creates an interaction (steps in, steps out;
// a streamed one as SSE events with event ids and data: [DONE]), keeps it
// unless store is false, continues a kept one by previous_interaction_id,
// and answers GET /v1beta/interactions/{id}. Thoughts carry a signature
// that must come back unchanged.
type interactionsMock struct {
	mu       sync.Mutex
	addr     string
	requests []string
	paths    []string
	// text and status are what the next interactions answer; fault, when
	// not "", how they fail: "cut" (a stream that breaks off inside its
	// output step), "error-event" (an error event after content) or
	// "quota" (429 RESOURCE_EXHAUSTED).
	text, status, fault string
	stored              map[string]string
	seq                 int
	// problems are the requests that break the protocol.
	problems []string
}

// interactionsSignature is the signature the mock's thoughts carry.
const interactionsSignature = "c2lnbmVkLWJ5LWdvb2dsZQ=="

var (
	interactionsOnce  sync.Once
	sharedInteraction *interactionsMock
	interactionsErr   error
)

// interactionsUpstream returns the suite's Interactions mock, started the
// first time.
func interactionsUpstream() (*interactionsMock, error) {
	interactionsOnce.Do(func() {
		m := &interactionsMock{stored: map[string]string{}}
		_, ln, err := serveMock(m.serveHTTP)
		if err != nil {
			interactionsErr = err
			return
		}
		m.addr = ln.Addr().String()
		sharedInteraction = m
	})
	return sharedInteraction, interactionsErr
}

// reset forgets the requests and sets the next answers' text and status.
func (m *interactionsMock) reset(text, status string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests, m.paths, m.problems, m.text, m.status, m.fault = nil, nil, nil, text, status, ""
}

// failWith makes the next interactions fail as fault says.
func (m *interactionsMock) failWith(fault string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fault = fault
}

// last returns the last request body and how many requests came.
func (m *interactionsMock) last() (gjson.Result, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) == 0 {
		return gjson.Result{}, 0
	}
	return gjson.Parse(m.requests[len(m.requests)-1]), len(m.requests)
}

// violations returns the requests that broke the protocol.
func (m *interactionsMock) violations() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.problems
}

func (m *interactionsMock) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.paths = append(m.paths, r.Method+" "+r.URL.Path)
	fail := func(status int, code, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, msg)
	}
	// Vertex AI's paths name the project and region, and its requests
	// carry an OAuth token; the Gemini API's carry the key.
	vertexPath := "/v1beta1/projects/" + vertexProject + "/locations/" + vertexLocation + "/interactions"
	onVertex := r.URL.Path == vertexPath || strings.HasPrefix(r.URL.Path, vertexPath+"/")
	switch {
	case onVertex && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "):
		m.problems = append(m.problems, "a Vertex AI request without a bearer token")
		fail(401, "UNAUTHENTICATED", "token required")
		return
	case !onVertex && r.Header.Get("X-Goog-Api-Key") == "":
		m.problems = append(m.problems, "no x-goog-api-key")
		fail(401, "UNAUTHENTICATED", "API key required")
		return
	}
	if r.Method == http.MethodGet && (strings.HasPrefix(r.URL.Path, "/v1beta/interactions/") || strings.HasPrefix(r.URL.Path, vertexPath+"/")) {
		v, ok := m.stored[r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]]
		if !ok {
			fail(404, "NOT_FOUND", "no such interaction")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, v)
		return
	}
	if onVertex && r.URL.Path != vertexPath ||
		!onVertex && r.URL.Path != "/v1beta/interactions" || r.Method != http.MethodPost {
		m.problems = append(m.problems, "unexpected "+r.Method+" "+r.URL.Path)
		fail(404, "NOT_FOUND", "no such method")
		return
	}
	m.requests = append(m.requests, string(body))
	req := gjson.ParseBytes(body)
	if req.Get("model").Str == "" || !req.Get("input").Exists() {
		m.problems = append(m.problems, "no model or input: "+string(body))
		fail(400, "INVALID_ARGUMENT", "model and input are required")
		return
	}
	var history []string
	if prev := req.Get("previous_interaction_id"); prev.Exists() {
		v, ok := m.stored[prev.Str]
		if !ok {
			fail(400, "INVALID_ARGUMENT", "previous interaction not found")
			return
		}
		for _, s := range gjson.Get(v, "steps").Array() {
			history = append(history, s.Raw)
		}
	}
	var input []gjson.Result
	if req.Get("input").IsArray() {
		input = req.Get("input").Array()
	}
	for _, s := range input {
		if s.Get("type").Str == "thought" && s.Get("signature").Str != interactionsSignature {
			m.problems = append(m.problems, "a thought came back with another signature: "+s.Raw)
		}
		if s.Get("type").Str == "function_call" || s.Get("type").Str == "user_input" || s.Get("type").Str == "model_output" ||
			s.Get("type").Str == "thought" || s.Get("type").Str == "function_result" {
			history = append(history, s.Raw)
			continue
		}
		m.problems = append(m.problems, "an input element that is not a step: "+s.Raw)
	}
	if req.Get("input").Type == gjson.String {
		history = append(history, `{"type":"user_input","content":[{"type":"text","text":`+req.Get("input").Raw+`}]}`)
	}
	if m.fault == "quota" {
		fail(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "quota exceeded for the mock")
		return
	}
	m.seq++
	id := fmt.Sprintf("v1_mock%d", m.seq)
	steps := []string{`{"type":"thought","signature":"` + interactionsSignature + `","summary":[{"type":"text","text":"Thinking."}]}`,
		`{"type":"model_output","content":[{"type":"text","text":` + jsonString(m.text) + `}]}`}
	usage := `{"total_input_tokens":15,"total_cached_tokens":5,"total_output_tokens":7,"total_thought_tokens":3,"total_tokens":25}`
	answer := `{"id":"` + id + `","model":` + jsonString(req.Get("model").Str) + `,"status":"` + m.status + `","steps":[` + strings.Join(steps, ",") + `],"usage":` + usage + `}`
	if req.Get("store").Type != gjson.False {
		all, _ := sjson.SetRaw(answer, "steps", "["+strings.Join(append(history, steps...), ",")+"]")
		m.stored[id] = all
	}
	if !req.Get("stream").Bool() {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	n := 0
	event := func(typ, rest string) {
		n++
		fmt.Fprintf(w, "event: %s\ndata: {\"event_type\":%q,\"event_id\":\"ev%d\",%s}\n\n", typ, typ, n, rest)
	}
	event("interaction.created", `"interaction":{"id":"`+id+`","model":`+jsonString(req.Get("model").Str)+`,"status":"in_progress"}`)
	event("step.start", `"index":0,"step":{"type":"thought"}`)
	event("step.delta", `"index":0,"delta":{"type":"thought_summary","content":{"type":"text","text":"Thinking."}}`)
	event("step.delta", `"index":0,"delta":{"type":"thought_signature","signature":"`+interactionsSignature+`"}`)
	event("step.stop", `"index":0`)
	event("step.start", `"index":1,"step":{"type":"model_output"}`)
	half := len(m.text) / 2
	for half > 0 && half < len(m.text) && m.text[half]&0xC0 == 0x80 {
		half++
	}
	event("step.delta", `"index":1,"delta":{"type":"text","text":`+jsonString(m.text[:half])+`}`)
	switch m.fault {
	case "cut":
		return
	case "error-event":
		event("error", `"error":{"code":"RESOURCE_EXHAUSTED","message":"quota exceeded mid-stream"}`)
		return
	}
	event("step.delta", `"index":1,"delta":{"type":"text","text":`+jsonString(m.text[half:])+`}`)
	event("step.stop", `"index":1`)
	event("interaction.status_update", `"interaction_id":"`+id+`","status":"`+m.status+`"`)
	event("interaction.completed", `"interaction":{"id":"`+id+`","status":"`+m.status+`","usage":`+usage+`}`)
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}
