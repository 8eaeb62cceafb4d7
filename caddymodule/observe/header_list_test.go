package observe

import (
	"strings"
	"testing"
)

// TestHeaderList joins a short list whole and cuts a long one at 2 KiB
// with "...".
func TestHeaderList(t *testing.T) {
	if got := HeaderList([]string{"store", "metadata"}); got != "store, metadata" {
		t.Errorf("got %q", got)
	}
	many := make([]string, 1000)
	for i := range many {
		many[i] = "messages[" + strings.Repeat("9", 3) + "].content[0].cache_control"
	}
	got := HeaderList(many)
	if len(got) > maxHeaderList+5 || !strings.HasSuffix(got, ", ...") {
		t.Errorf("len %d, ends %q", len(got), got[len(got)-10:])
	}
}
