package caddymodule

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	// Standard modules: the golden files include reverse_proxy, handle,
	// log filters and log_append.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestAdaptGolden")

// TestAdaptGolden adapts every testdata/adapt/*.caddyfile, and the
// repository's Caddyfile.example, to JSON as `caddy adapt` does, and
// compares it with the golden file beside it: <name>.json, or <name>.err
// with the error message for the err-* inputs. Run with -update to rewrite
// the golden files.
func TestAdaptGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "adapt", "*.caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, filepath.Join("..", "Caddyfile.example"))
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".caddyfile")
		golden := filepath.Join("testdata", "adapt", name)
		if strings.HasPrefix(name, "err-") {
			golden += ".err"
		} else {
			golden += ".json"
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			adapter := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}
			out, warnings, err := adapter.Adapt(src, map[string]any{"filename": filepath.Base(in)})
			var got []byte
			switch {
			case strings.HasPrefix(name, "err-"):
				if err == nil {
					t.Fatalf("adapting %s succeeded, want an error", in)
				}
				got = []byte(err.Error() + "\n")
			case err != nil:
				t.Fatalf("adapting %s: %v", in, err)
			default:
				for _, w := range warnings {
					t.Errorf("adapting %s: warning %s", in, w.Message)
				}
				var buf bytes.Buffer
				if err := json.Indent(&buf, out, "", "\t"); err != nil {
					t.Fatal(err)
				}
				buf.WriteByte('\n')
				got = buf.Bytes()
			}
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestAdaptGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("adapting %s gives\n%s\nwant (%s)\n%s", in, got, golden, want)
			}
		})
	}
}
