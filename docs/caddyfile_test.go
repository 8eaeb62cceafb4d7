package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	// Caddy's standard modules and llmbridge: every directive the
	// documented Caddyfiles use.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/llmbridge/llmbridge/caddymodule"
)

// caddyfileBlockRE matches a fenced caddyfile code block.
var caddyfileBlockRE = regexp.MustCompile("(?s)```caddyfile\n(.*?)```")

// TestCaddyfiles adapts every caddyfile block of README.md, docs/*.md and
// Caddyfile.example and fails on an error or a warning of Caddy's
// adapter (a reader copies these into their edge, where Caddy would log
// the warning at every start), and on a block that `caddy fmt` would
// change. A fragment (an llmbridge block, a model_rule line, a log block)
// is adapted inside a site; a syntax summary (with <placeholders>) is
// skipped.
func TestCaddyfiles(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	adapter := caddyconfig.GetAdapter("caddyfile")
	if adapter == nil {
		t.Fatal("no caddyfile adapter")
	}
	// Directives warn through Caddy's default logger, not the adapter's
	// warnings ("Unnecessary header_up Host"): a configuration with only
	// a default log sends it to a file the test reads.
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	cfg := `{"admin":{"disabled":true},"logging":{"logs":{"default":{"writer":{"output":"file","filename":` + strconv.Quote(logFile) + `},"level":"WARN"}}}}`
	if err := caddy.Load([]byte(cfg), true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	logged := func() string { b, _ := os.ReadFile(logFile); return string(b) }
	check := func(name, block string) {
		if strings.Contains(block, "[<") || strings.Contains(block, "<upstream>") {
			return
		}
		if formatted := string(caddyfile.Format([]byte(block))); formatted != block {
			t.Errorf("%s: caddy fmt would change the block:\n%s\nto:\n%s", name, block, formatted)
		}
		whole := wrapFragment(block)
		before := len(logged())
		_, warnings, err := adapter.Adapt([]byte(whole), map[string]any{"filename": name})
		if err != nil {
			t.Errorf("%s: the block does not adapt: %v\n%s", name, err, whole)
			return
		}
		for _, w := range warnings {
			t.Errorf("%s: Caddy warns: %s (line %d of the block)\n%s", name, w.Message, w.Line, whole)
		}
		if l := logged(); len(l) > before {
			t.Errorf("%s: Caddy logs while adapting: %s\n%s", name, l[before:], whole)
		}
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range caddyfileBlockRE.FindAllStringSubmatch(string(b), -1) {
			check(page+" block "+string(rune('0'+i/10))+string(rune('0'+i%10)), m[1])
		}
	}
	example, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	check("Caddyfile.example", string(example))
}

// wrapFragment returns a documented Caddyfile block as a whole Caddyfile:
// a block that starts inside a site (llmbridge, log) goes into a site of
// its own, and one that starts inside an llmbridge block (a model_rule
// line) into an llmbridge block of such a site.
func wrapFragment(block string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(block), " ")
	switch first {
	case "llmbridge", "log", "reverse_proxy", "route", "handle", "tracing":
		return ":8080 {\n" + indent(block, "\t") + "}\n"
	case "model_rule", "upstream", "api_key", "client_keys", "failover":
		return ":8080 {\n\tllmbridge {\n\t\tupstream openai-chat\n" + indent(block, "\t\t") + "\t}\n}\n"
	}
	return block
}

// indent prefixes every line of block with prefix.
func indent(block, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(block, "\n"), "\n", "\n"+prefix) + "\n"
}
