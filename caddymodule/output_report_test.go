package caddymodule

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule/writers"
)

// TestTranslatedOutputReported answers a Chat client from a Gemini
// upstream whose answer holds state (executableCode) and display
// (inlineData) no Chat message can express: the text arrives, the display
// part is named in Llmbridge-Dropped-Output (JSON only: a stream's header
// is already sent) and counted in dropped_output_total, and the state is
// counted in opaque_carried_total, streamed and not.
func TestTranslatedOutputReported(t *testing.T) {
	const parts = `[{"text":"Here it is."},{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]`
	const answer = `{"candidates":[{"content":{"role":"model","parts":` + parts + `},"finishReason":"STOP"}],"modelVersion":"gemini-x"}`
	tests := []struct {
		name   string
		stream bool
		answer string
	}{
		{"json", false, answer},
		{"stream", true, "data: " + answer + "\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "gemini"})
			dropped := metricValue(t, "caddy_llmbridge_dropped_output_total", "kind=inlineData")
			carried := metricValue(t, "caddy_llmbridge_opaque_carried_total", "kind=executableCode")
			body := `{"model":"gemini-x","messages":[{"role":"user","content":"draw"}]}`
			ctype := "application/json"
			if tt.stream {
				body = `{"model":"gemini-x","stream":true,"messages":[{"role":"user","content":"draw"}]}`
				ctype = "text/event-stream"
			}
			w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body)), rawAnswer(200, ctype, tt.answer, 64, false))
			if w.Code != 200 || !strings.Contains(w.Body.String(), "Here it is.") || strings.Contains(w.Body.String(), "iVBORw0KGgo") {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			hdr := w.Header().Get(writers.DroppedOutputHeader)
			if tt.stream != (hdr == "") || !tt.stream && !strings.Contains(hdr, "inlineData") {
				t.Errorf("%s = %q", writers.DroppedOutputHeader, hdr)
			}
			if got := metricValue(t, "caddy_llmbridge_dropped_output_total", "kind=inlineData") - dropped; got != 1 {
				t.Errorf("dropped_output_total{inlineData} grew by %v, want 1", got)
			}
			if got := metricValue(t, "caddy_llmbridge_opaque_carried_total", "kind=executableCode") - carried; got != 1 {
				t.Errorf("opaque_carried_total{executableCode} grew by %v, want 1", got)
			}
		})
	}
}
