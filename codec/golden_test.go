package codec

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// checkGolden compares got, a JSON document, with the golden file at
// testdata/name, both indented; with -update it rewrites the file instead.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if !json.Valid(got) {
		t.Fatalf("%s: output is not valid JSON: %s", name, got)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, indented.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codec -update to create it)", err)
	}
	if !bytes.Equal(indented.Bytes(), want) {
		t.Errorf("%s differs from golden file:\n got: %s\nwant: %s", name, indented.Bytes(), want)
	}
}

// recordingsDir is where the shared provider recordings live, beside the
// repository (relative to the package directory).
const recordingsDir = "../../shared/recordings"

// skipWithoutRecordings skips t when the recordings are absent: they are data
// under their own licences and are never copied into the repository.
func skipWithoutRecordings(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(recordingsDir); err != nil {
		t.Skip("../shared/recordings not present")
	}
}

// readRecording returns the recording recordingsDir/name (such as
// "gemini/max-tokens.json"), skipping t when the recordings are absent.
func readRecording(t testing.TB, name string) gjson.Result {
	t.Helper()
	skipWithoutRecordings(t)
	b, err := os.ReadFile(filepath.Join(recordingsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(b)
}

// readTestdata returns the contents of testdata/name.
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
