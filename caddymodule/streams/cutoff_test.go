package streams

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"
)

// TestUpstreamCutoff checks the cutoff of a streamed request: its context
// is cancelled EndGrace after the client's stream completed, at
// once on release, and a request that asked for no stream keeps its own
// request.
func TestUpstreamCutoff(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	if got, c := WithCutoff(r, false); got != r || c != nil {
		t.Fatalf("a request without a stream got a cutoff")
	}
	var none *Cutoff
	none.Completed()
	none.Release()

	up, c := WithCutoff(r, true)
	start := time.Now()
	c.Completed()
	c.Completed()
	select {
	case <-up.Context().Done():
		if d := time.Since(start); d < EndGrace {
			t.Errorf("cancelled after %v, before the grace of %v", d, EndGrace)
		}
	case <-time.After(time.Second):
		t.Fatal("the upstream request was not cancelled after the grace")
	}
	if r.Context().Err() != nil {
		t.Error("the client's request context was cancelled")
	}
	c.Release()

	up, c = WithCutoff(r, true)
	c.Release()
	if !errors.Is(up.Context().Err(), context.Canceled) {
		t.Error("release did not cancel the upstream request")
	}
}
