package eventstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/sse"
)

// recordingsDir holds real provider exchanges, beside the repository.
const recordingsDir = "../../../shared/recordings"

// TestRecordings frames the events of every recorded SSE stream (real
// payloads: long tool arguments, signatures, non-ASCII text) as messages
// and chunks: byte for byte what aws-sdk-go-v2's encoder writes, read back
// as its decoder reads them, and, for streams whose events are all named
// (Anthropic's, which InvokeModel's chunks carry), back to the same
// events. The recordings hold no Bedrock stream of their own.
func TestRecordings(t *testing.T) {
	if _, err := os.Stat(recordingsDir); err != nil {
		t.Skip("../shared/recordings not present")
	}
	files, err := filepath.Glob(filepath.Join(recordingsDir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n, named := 0, 0
	for _, f := range files {
		var rec struct {
			Stream   bool `json:"stream"`
			Response struct {
				Headers map[string]string `json:"headers"`
				Body    any               `json:"body"`
			} `json:"response"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		body, ok := rec.Response.Body.(string)
		if !rec.Stream || !ok || !strings.HasPrefix(rec.Response.Headers["content-type"], "text/event-stream") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			if checkRecording(t, []byte(body)) {
				named++
			}
		})
	}
	if n == 0 || named == 0 {
		t.Fatalf("%d recorded SSE streams, %d of named events", n, named)
	}
}

// checkRecording frames the SSE stream body as messages and chunks, and
// reports whether its events are all named.
func checkRecording(t *testing.T, body []byte) bool {
	events, named := sseEvents(t, body)
	for _, chunks := range []bool{false, true} {
		w := NewWriter(1 << 24)
		if chunks {
			w = NewChunkWriter(1 << 24)
		}
		var msgs []byte
		for piece := range bytes.SplitAfterSeq(body, []byte("\n")) {
			var err error
			if msgs, err = w.Push(msgs, piece); err != nil {
				t.Fatal(err)
			}
		}
		want, err := libWrite(body, chunks, 1<<24)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(msgs, want) {
			t.Fatalf("chunks %v: the Writer's %d bytes differ from aws-sdk-go-v2's %d", chunks, len(msgs), len(want))
		}
		out, err := agree(t, msgs, 1<<24, chunks)
		if named && (err != nil || string(out) != events) {
			t.Errorf("chunks %v: read back %q (%v), want %q", chunks, out, err, events)
		}
	}
	return named
}

// sseEvents returns the events of an SSE body as AppendEvent writes them,
// and whether every one has a name.
func sseEvents(t *testing.T, body []byte) (string, bool) {
	r := sse.NewPushReader(1 << 24)
	r.Push(body)
	r.CloseInput()
	var out []byte
	named := true
	for {
		ev, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			return string(out), named && len(out) > 0
		}
		if ev.Bare {
			continue
		}
		named = named && len(ev.Name) > 0
		out = sse.AppendEvent(out, string(ev.Name), ev.Data)
	}
}
