package bedrock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// goldenSources are the client protocols whose test requests and streams
// (codec/testdata/<protocol>/) the golden tests translate to Converse.
var goldenSources = []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini}

// TestGoldenRequests translates every test request of the other families
// to a Converse request for a Claude model, and compares the result (or
// the error that refuses it) with testdata/bedrock/request_from_*.json.
// Each output must decode as a Converse request.
func TestGoldenRequests(t *testing.T) {
	for _, from := range goldenSources {
		names, err := filepath.Glob(filepath.Join(codectest.Testdata, string(from), "request_*.json"))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no test requests (%v)", from, err)
		}
		for _, name := range names {
			base := strings.TrimSuffix(filepath.Base(name), ".json")
			t.Run(string(from)+"/"+base, func(t *testing.T) {
				body, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				var req codec.Request
				if err := codec.DecodeRequest(from, body, &req); err != nil {
					t.Fatalf("the %s test request does not decode: %v", from, err)
				}
				golden := "bedrock/request_from_" + string(from) + "_" + strings.TrimPrefix(base, "request_") + ".json"
				out, err := codec.AppendRequest(nil, codec.Bedrock, &req, codec.EncodeOptions{Model: claude})
				var e *codec.Error
				if errors.As(err, &e) {
					doc := append([]byte(`{"error":`), jsonx.AppendString(nil, e.Error())...)
					doc = append(append(doc, `,"class":`...), jsonx.AppendString(nil, e.Class.String())...)
					codectest.CheckGolden(t, golden, append(doc, '}'))
					return
				}
				codectest.CheckGolden(t, golden, out)
				var back codec.Request
				if err := codec.DecodeRequest(codec.Bedrock, out, &back); err != nil {
					t.Errorf("the output does not decode: %v\n%s", err, out)
				}
			})
		}
	}
}

// TestGoldenStreams translates the test streams of the other families
// (read as upstream streams) to ConverseStream events, and compares them
// with testdata/bedrock/stream_from_*.sse; the SSE must decode as a well
// formed Converse stream.
func TestGoldenStreams(t *testing.T) {
	for _, from := range goldenSources {
		names, _ := filepath.Glob(filepath.Join(codectest.Testdata, string(from), "stream_*.sse"))
		for _, name := range names {
			base := strings.TrimSuffix(filepath.Base(name), ".sse")
			t.Run(string(from)+"/"+base, func(t *testing.T) {
				body, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				evs := codectest.DecodeStream(t, from, string(body), nil)
				got := codectest.EncodeStream(codec.Bedrock, &codec.Request{Stream: true}, evs)
				checkTextGolden(t, filepath.Join("bedrock", "stream_from_"+string(from)+"_"+strings.TrimPrefix(base, "stream_")+".sse"), got)
				codectest.CheckWellFormed(t, codectest.DecodeStream(t, codec.Bedrock, got, nil))
			})
		}
	}
}

// checkTextGolden compares got with the golden file testdata/name, byte
// for byte; with -update it rewrites the file instead.
func checkTextGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(codectest.Testdata, name)
	if *codectest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in this package writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n got: %q\nwant: %q", path, got, want)
	}
}
