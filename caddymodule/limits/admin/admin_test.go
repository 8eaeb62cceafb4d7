package admin

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// TestLimitsReport answers the admin API's GET /llmbridge/limits with the
// published sets' reports.
func TestLimitsReport(t *testing.T) {
	set, err := limits.New([]limits.Limit{{Scope: "admin-test", Rates: []limits.Rate{{Of: "spend", Max: 5, Per: "day"}}, Streams: 2}}, state.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	limits.Publish(set, []string{"alice"})
	defer limits.Withdraw(set)
	if len((limitsAdmin{}).Routes()) != 1 || (limitsAdmin{}).CaddyModule().ID != "admin.api.llmbridge" {
		t.Fatal("no route")
	}
	w := httptest.NewRecorder()
	if err := serveLimitsReport(w, httptest.NewRequest("GET", "/llmbridge/limits", nil)); err != nil {
		t.Fatal(err)
	}
	var reports []limits.Report
	if err := json.Unmarshal(w.Body.Bytes(), &reports); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	found := 0
	for _, r := range reports {
		if r.Key == "alice" && r.Scope == "admin-test" && (r.Limit == "spend/day" && r.Max == 5 || r.Limit == "streams" && r.Max == 2) {
			found++
		}
	}
	if found != 2 || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("report %s, want alice's spend/day and streams", w.Body)
	}
	var apiErr caddy.APIError
	if err := serveLimitsReport(httptest.NewRecorder(), httptest.NewRequest("POST", "/llmbridge/limits", nil)); !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v, want 405", err)
	}
}

// failingStore is a store whose counters cannot be read.
type failingStore struct{ state.Store }

func (failingStore) Read(context.Context, []state.Count, []int64) error {
	return errors.New("unreachable")
}

// TestLimitsReportStoreDown answers 503 when the store cannot be read.
func TestLimitsReportStoreDown(t *testing.T) {
	set, err := limits.New([]limits.Limit{{Scope: "admin-down", Rates: []limits.Rate{{Of: "requests", Max: 5, Per: "day"}}}}, failingStore{state.NewMemory(0)})
	if err != nil {
		t.Fatal(err)
	}
	limits.Publish(set, []string{"alice"})
	defer limits.Withdraw(set)
	var apiErr caddy.APIError
	if err := serveLimitsReport(httptest.NewRecorder(), httptest.NewRequest("GET", "/llmbridge/limits", nil)); !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusServiceUnavailable {
		t.Errorf("a store that cannot be read: %v, want 503", err)
	}
}
