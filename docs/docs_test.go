package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxReadme is the largest README.md: a front page, with the manual in
// docs/.
const maxReadme = 12 << 10

// TestReadmeSize keeps README.md a front page.
func TestReadmeSize(t *testing.T) {
	info, err := os.Stat("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > maxReadme {
		t.Errorf("README.md is %d bytes, more than %d: move the detail to a page in docs/", info.Size(), maxReadme)
	}
}

// linkRE matches an inline markdown link or image, [text](target), with
// text that may hold code spans and escaped characters but no brackets.
var linkRE = regexp.MustCompile(`\[(?:[^\[\]]|\\.)*\]\(([^()\s]+)\)`)

// TestLinks checks every relative link of README.md and docs/*.md: the
// file or directory it names exists, and a #fragment names a heading of
// the markdown file it points at.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	if len(pages) < 2 {
		t.Fatal("no pages in docs/")
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(b))
		anchors[path] = a
		return a
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range linkRE.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				if strings.HasPrefix(file, "/") {
					t.Errorf("%s: link %q is absolute; links must be relative", page, target)
					continue
				}
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %s does not exist", page, target, path)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				t.Errorf("%s: link %q: a fragment of a file that is not markdown", page, target)
				continue
			}
			if !anchorsOf(path)[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor %q", page, target, path, frag)
			}
		}
		if n == 0 && page == "../README.md" {
			t.Errorf("%s: no relative links found; the link pattern is broken", page)
		}
	}
}

// stripCode removes fenced code blocks and code spans, where brackets
// are not links.
func stripCode(s string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			b.WriteString("\n")
			continue
		}
		if fenced {
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives the headings of a
// markdown document: the heading text lower-cased, with everything but
// letters, digits, spaces, hyphens and underscores removed and spaces
// turned into hyphens; a repeated anchor gets -1, -2, ... appended.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for line := range strings.Lines(doc) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var a strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		anchor := a.String()
		if k := seen[anchor]; k > 0 {
			out[anchor+"-"+strconv.Itoa(k)] = true
		} else {
			out[anchor] = true
		}
		seen[anchor]++
	}
	return out
}

// codePathRE matches a repository path in a code span of the docs, such as
// `codec/descriptor.go` or `caddymodule/passthrough.go`.
var codePathRE = regexp.MustCompile("`((?:codec|caddymodule|caddytest|mapping|sse|cmd|docs|\\.ci)/[A-Za-z0-9_./-]+)`")

// TestCodePaths checks that every repository path the docs name in a code
// span exists, so that a moved or split file leaves no stale pointer.
func TestCodePaths(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range codePathRE.FindAllStringSubmatch(string(b), -1) {
			path := strings.TrimSuffix(m[1], "/")
			if strings.ContainsAny(path, "*") {
				continue
			}
			if _, err := os.Stat(filepath.Join("..", path)); err != nil {
				t.Errorf("%s names %s, which does not exist", page, path)
			}
		}
	}
}
