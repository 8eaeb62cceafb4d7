package codec

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
)

// TestAsError keeps a codec's *Error as it is and makes any other error a
// generic API error with its message.
func TestAsError(t *testing.T) {
	e := InvalidRequest("model", "missing")
	if got := AsError(e); got != e {
		t.Errorf("AsError(%v) = %v, want the same error", e, got)
	}
	if got := AsError(errors.New("boom")); got.Kind != mapping.ErrAPI || got.Message != "boom" || got.Status != mapping.StatusForKind(mapping.ErrAPI) {
		t.Errorf("AsError(boom) = %+v", got)
	}
}
