package observe

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
)

func TestStripIndices(t *testing.T) {
	tests := []struct{ in, want string }{
		{"store", "store"},
		{"messages[3].cache_control", "messages[].cache_control"},
		{"messages[12].content[0].cache_control", "messages[].content[].cache_control"},
		{"system[0]", "system[]"},
		{"a[x1]", "a[x]"},
	}
	for _, tt := range tests {
		if got := stripIndices(tt.in); got != tt.want {
			t.Errorf("stripIndices(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKindName(t *testing.T) {
	for k := mapping.ErrAPI; k <= mapping.ErrBadGateway; k++ {
		if n := KindName(k); n == "" || strings.HasPrefix(n, "error_") {
			t.Errorf("kind %d has no name (%q)", k, n)
		}
	}
	if n := KindName(200); n != "error_200" {
		t.Errorf("kindName(200) = %q", n)
	}
}

// TestDroppedOutputKind: the kind label of a dropped output entry is the
// name in parentheses that ends it, else its path without indices; labels
// are bounded.
func TestDroppedOutputKind(t *testing.T) {
	tests := []struct{ entry, want string }{
		{"candidates[0].content.parts[2] (inlineData)", "inlineData"},
		{"choices[0].message.audio.data (audio)", "audio"},
		{"content[3] (server tool call)", "server tool call"},
		{"content[0].signature", "content[].signature"},
		{"content[0].citations", "content[].citations"},
	}
	for _, tt := range tests {
		if got := DroppedOutputKind(tt.entry); got != tt.want {
			t.Errorf("droppedOutputKind(%q) = %q, want %q", tt.entry, got, tt.want)
		}
	}
	if got := outputLabel(strings.Repeat("x", 100)); len(got) != maxOutputLabel {
		t.Errorf("label of %d bytes", len(got))
	}
	if got := outputLabel(""); got != "unknown" {
		t.Errorf("empty kind labelled %q", got)
	}
}
