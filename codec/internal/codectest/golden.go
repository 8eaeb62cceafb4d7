package codectest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tidwall/gjson"
)

// CheckGolden compares got, a JSON document, with the golden file at
// testdata/name, both indented; with -update it rewrites the file instead.
func CheckGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if !json.Valid(got) {
		t.Fatalf("%s: output is not valid JSON: %s", name, got)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	path := filepath.Join(Testdata, name)
	if *Update {
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
		t.Fatalf("%v (go test -update in this package writes it)", err)
	}
	if !bytes.Equal(indented.Bytes(), want) {
		t.Errorf("%s differs from golden file:\n got: %s\nwant: %s", name, indented.Bytes(), want)
	}
}

// Testdata is the codec's test data directory (codec/testdata), which
// the tests of every codec package share.
var Testdata = filepath.Join(codecDir(), "testdata")

// RecordingsDir is where the shared provider recordings live, beside the
// repository.
var RecordingsDir = filepath.Join(codecDir(), "..", "..", "shared", "recordings")

// codecDir is the directory of package codec, found from this file's
// path so that tests of any package under it find the same files.
func codecDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("codectest: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// SkipWithoutRecordings skips t when the recordings are absent: they are data
// under their own licences and are never copied into the repository.
func SkipWithoutRecordings(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(RecordingsDir); err != nil {
		t.Skip("../shared/recordings not present")
	}
}

// ReadRecording returns the recording recordingsDir/name (such as
// "gemini/max-tokens.json"), skipping t when the recordings are absent.
func ReadRecording(t testing.TB, name string) gjson.Result {
	t.Helper()
	SkipWithoutRecordings(t)
	b, err := os.ReadFile(filepath.Join(RecordingsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(b)
}

// Update makes CheckGolden and the stream golden tests rewrite their files
// (go test -update in the package whose test failed).
var Update = flag.Bool("update", false, "rewrite golden files under testdata/")

// ReadTestdata returns the contents of testdata/name.
func ReadTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
