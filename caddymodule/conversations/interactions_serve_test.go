package conversations

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// TestInteractionsContinue keeps an answered interaction through the
// writer Continue returns, continues it with its whole history, serves
// GET and DELETE of it, and keeps nothing without a store, with store
// false or when the caller keeps nothing (a failover site).
func TestInteractionsContinue(t *testing.T) {
	s := &Interactions{Store: state.NewMemory(1 << 20), Logger: zap.NewNop()}
	post := func(body string, keep bool, answer string) (string, *Recorder) {
		t.Helper()
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/v1beta/interactions", nil)
		sent, rec, err := s.Continue(w, r, []byte(body), keep)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if rec != nil {
			rec.Header().Set("Content-Type", "application/json")
			_, _ = rec.Write([]byte(answer))
			if w.Body.Len() != 0 {
				t.Error("a JSON answer was passed on before it was stored")
			}
			rec.Finish()
			if w.Body.String() != answer {
				t.Errorf("the client got %q", w.Body)
			}
		}
		return string(sent), rec
	}
	answer := `{"id":"int_1","status":"completed","steps":[{"type":"model_output","content":[{"type":"text","text":"4"}]}]}`
	if _, rec := post(`{"model":"g","input":"2+2?"}`, true, answer); rec == nil {
		t.Fatal("a stored interaction got no recorder")
	}
	sent, _ := post(`{"model":"g","previous_interaction_id":"int_1","input":[{"type":"text","text":"3+3?"}]}`, false, "")
	steps := gjson.Get(sent, "input")
	if gjson.Get(sent, "previous_interaction_id").Exists() || steps.Get("#").Int() != 3 ||
		steps.Get("0.content.0.text").Str != "2+2?" || steps.Get("1.type").Str != "model_output" || steps.Get("2.content.0.text").Str != "3+3?" {
		t.Errorf("continued body %s", sent)
	}
	if _, rec := post(`{"model":"g","store":false,"input":"x"}`, true, ""); rec != nil {
		t.Error("store false got a recorder")
	}

	get := func(method, path string) *httptest.ResponseRecorder {
		t.Helper()
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, nil)
		id, ok := StoredID(r.URL.Path)
		if !ok {
			t.Fatalf("%s is not an interaction's path", path)
		}
		if err := s.ServeStored(w, r, id); err != nil {
			w.Code = err.Status
		}
		return w
	}
	if w := get(http.MethodGet, "/v1beta/interactions/int_1?include_input=true"); w.Code != 200 || gjson.Get(w.Body.String(), "steps.#").Int() != 2 || strings.Contains(w.Body.String(), storedSpan) {
		t.Errorf("GET: %d %s", w.Code, w.Body)
	}
	if w := get(http.MethodDelete, "/v1beta/interactions/int_1"); w.Code != 200 || w.Body.String() != "{}" {
		t.Errorf("DELETE: %d %s", w.Code, w.Body)
	}
	if w := get(http.MethodGet, "/v1beta/interactions/int_1"); w.Code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d", w.Code)
	}
	_, _, err := s.Continue(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil), []byte(`{"previous_interaction_id":"int_1","input":"x"}`), true)
	if err == nil || err.Status != http.StatusBadRequest || err.Param != "previous_interaction_id" {
		t.Errorf("continuing a deleted interaction: %+v", err)
	}

	none := &Interactions{}
	if w := httptest.NewRecorder(); none.ServeStored(w, httptest.NewRequest(http.MethodGet, "/v1beta/interactions/x", nil), "x").Status != http.StatusNotFound {
		t.Error("GET without a store is not a 404")
	}
	if sent, rec, err := none.Continue(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil), []byte(`{"input":"x"}`), true); err != nil || rec != nil || string(sent) != `{"input":"x"}` {
		t.Errorf("without a store: %q %v %v", sent, rec, err)
	}
	if _, _, err := none.Continue(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil), []byte(`{"background":true}`), true); err == nil || err.Param != "background" {
		t.Errorf("background: %+v", err)
	}
}
