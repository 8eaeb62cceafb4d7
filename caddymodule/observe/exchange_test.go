package observe

import (
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/codec"
)

// TestServerReached reads the upstream reverse_proxy reached from its
// placeholders and keeps it for the next call span.
func TestServerReached(t *testing.T) {
	var tr Tracing
	if s := tr.ServerReached(nil); s != nil {
		t.Errorf("nothing reached yet: %+v", s)
	}
	repl := caddy.NewReplacer()
	if s := tr.ServerReached(repl); s != nil {
		t.Errorf("no placeholders: %+v", s)
	}
	repl.Set("http.reverse_proxy.upstream.host", "api.example.com")
	repl.Set("http.reverse_proxy.upstream.port", "443")
	s := tr.ServerReached(repl)
	if s == nil || s.host != "api.example.com" || s.port != 443 {
		t.Fatalf("reached %+v", s)
	}
	if again := tr.ServerReached(repl); again != s {
		t.Errorf("the same server was made again")
	}
	if last := tr.ServerReached(nil); last != s {
		t.Errorf("the handler's last server is %+v", last)
	}
}

// TestCallErrorType names the upstream call's error: the provider's own
// status, a stream's error, an answer that never came.
func TestCallErrorType(t *testing.T) {
	for _, tc := range []struct {
		x    Exchange
		want string
	}{
		{Exchange{UpstreamStatus: 529, Status: 503}, "529"},
		{Exchange{UpstreamStatus: 200, StreamErr: "bad_gateway"}, "bad_gateway"},
		{Exchange{UpstreamStatus: 200, ErrReason: "invalid_upstream_response"}, "invalid_upstream_response"},
		{Exchange{Status: StatusClientGone}, "canceled"},
		{Exchange{UpstreamStatus: 200, Status: 200}, ""},
	} {
		if got := tc.x.CallErrorType(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.x, got, tc.want)
		}
	}
}

// TestModality names media parts as the conventions do.
func TestModality(t *testing.T) {
	for _, tc := range []struct {
		p    codec.Part
		want string
	}{
		{codec.Part{Type: codec.PartImage}, "image"},
		{codec.Part{Type: codec.PartAudio}, "audio"},
		{codec.Part{Type: codec.PartDocument, MediaType: "video/mp4"}, "video"},
		{codec.Part{Type: codec.PartDocument, MediaType: "application/pdf"}, "application"},
		{codec.Part{Type: codec.PartDocument}, "document"},
	} {
		if got := modality(&tc.p); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
