package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestWebSocketPassthroughHandshake hands a handshake to the next handler
// with the upstream's credential in place of the client's key, and records
// the connection; a site that is not an openai-responses upstream refuses
// the setting.
func TestWebSocketPassthroughHandshake(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-responses", APIKey: "sk-upstream", WebSocket: "passthrough",
		ClientKeys: []ClientKey{{Name: "alice", Key: "sk-alice"}}})
	r := httptest.NewRequest(http.MethodGet, "/v1/responses", nil)
	for k, v := range map[string]string{"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Authorization": "Bearer sk-alice"} {
		r.Header.Set(k, v)
	}
	w, rec := serveRecorded(t, h, r, func(w http.ResponseWriter) error {
		w.WriteHeader(http.StatusSwitchingProtocols)
		return nil
	})
	if w.Code != http.StatusSwitchingProtocols {
		t.Errorf("status %d, want the upstream's 101", w.Code)
	}
	if rec.fields["client_key"] != "alice" {
		t.Errorf("access log %v, want the connection recorded with alice's key", rec.fields)
	}
	var seen http.Header
	r2 := httptest.NewRequest(http.MethodGet, "/v1/responses", nil)
	r2.Header = r.Header.Clone()
	r2.Header.Set("Authorization", "Bearer sk-alice")
	_, call := serve(t, h, r2, func(w http.ResponseWriter) error { w.WriteHeader(101); return nil })
	seen = call.header
	if seen.Get("Authorization") != "Bearer sk-upstream" || seen.Get("Upgrade") != "websocket" {
		t.Errorf("the upstream got %v, want the upstream's key and the upgrade", seen)
	}
	for _, bad := range []*Handler{{Upstream: "openai-chat", WebSocket: "passthrough"}, {Upstream: "openai-responses", WebSocket: "maybe"}} {
		if err := bad.checkConfig(); err == nil || !strings.Contains(err.Error(), "websocket") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestWebSocketPassthroughNoKey refuses a passed-through handshake when
// every pooled upstream key is cooling, in the client's format with
// Retry-After, before the upstream is called, and records it.
func TestWebSocketPassthroughNoKey(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-responses", APIKeys: []string{"k0", "k1"}, WebSocket: "passthrough"})
	until := time.Now().Add(time.Minute).UnixNano()
	for i := range h.keys.Len() {
		h.keys.CoolUntil(i, until)
	}
	r := httptest.NewRequest(http.MethodGet, "/v1/responses", nil)
	for k, v := range map[string]string{"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="} {
		r.Header.Set(k, v)
	}
	w, rec := serveRecorded(t, h, r, func(w http.ResponseWriter) error {
		t.Error("the upstream was called with every key cooling")
		return nil
	})
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "rate limit") {
		t.Errorf("%d %v %s, want a 429 with Retry-After", w.Code, w.Header(), w.Body)
	}
	if rec.fields["error_type"] != "rate_limit" {
		t.Errorf("access log %v, want the refused handshake recorded as rate limited", rec.fields)
	}
}
