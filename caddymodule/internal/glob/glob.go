// Package glob compiles the model-name patterns of llmbridge's
// configuration (model routes, prices, the llm_model matcher): literal
// text whose '*' wildcards capture, and targets that refer to the
// captures as $1 to $9. Matching is allocation-free.
package glob

import (
	"fmt"
	"strings"
)

// MaxCaptures is the number of wildcards a model glob may have: the
// target refers to them as $1 to $9.
const MaxCaptures = 9

// Pattern is a compiled model-name pattern: literal text in which each '*'
// matches any run of characters (possibly empty) and captures it. Matching
// is anchored at both ends and allocation-free; each wildcard takes the
// shortest run that lets the rest of the pattern match from left to right,
// so "gpt-*-*" captures "4o" and "mini-2024" from "gpt-4o-mini-2024".
type Pattern struct {
	// lits are the literal pieces around the wildcards: one more than
	// there are wildcards.
	lits []string
}

// Compile parses pattern. It fails for an empty pattern, two adjacent
// wildcards (whose split would be ambiguous) and more than MaxCaptures
// wildcards.
func Compile(pattern string) (Pattern, error) {
	if pattern == "" {
		return Pattern{}, fmt.Errorf("empty model pattern")
	}
	if strings.Contains(pattern, "**") {
		return Pattern{}, fmt.Errorf("model pattern %q has two adjacent wildcards; use one '*'", pattern)
	}
	lits := strings.Split(pattern, "*")
	if len(lits)-1 > MaxCaptures {
		return Pattern{}, fmt.Errorf("model pattern %q has %d wildcards; at most %d are allowed", pattern, len(lits)-1, MaxCaptures)
	}
	return Pattern{lits: lits}, nil
}

// Wildcards returns the number of '*' in the pattern.
func (g *Pattern) Wildcards() int { return len(g.lits) - 1 }

// Match reports whether s matches the whole pattern and, when caps is not
// nil, stores the text each wildcard matched in caps[0:g.Wildcards()].
func (g *Pattern) Match(s string, caps *[MaxCaptures]string) bool {
	first, last := g.lits[0], g.lits[len(g.lits)-1]
	if len(g.lits) == 1 {
		return s == first
	}
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	pos, end := len(first), len(s)-len(last)
	for i := 1; i < len(g.lits)-1; i++ {
		lit := g.lits[i]
		j := strings.Index(s[pos:end], lit)
		if j < 0 {
			return false
		}
		if caps != nil {
			caps[i-1] = s[pos : pos+j]
		}
		pos += j + len(lit)
	}
	if caps != nil {
		caps[len(g.lits)-2] = s[pos:end]
	}
	return true
}

// Template is a compiled upstream model name: literal text with $1 to $9
// standing for what the wildcards of the matching pattern captured. A '$' not
// followed by a digit from 1 to 9 is literal.
type Template struct {
	// pieces alternate literal text and capture references: a piece with
	// ref > 0 inserts capture ref, one with ref 0 inserts text.
	pieces []templatePiece
	size   int // the literal length, to size the result
}

type templatePiece struct {
	text string
	ref  int
}

// CompileTemplate parses target, which may refer to at most wildcards
// captures.
func CompileTemplate(target string, wildcards int) (Template, error) {
	if target == "" {
		return Template{}, fmt.Errorf("empty upstream model")
	}
	var t Template
	lit := 0
	for i := 0; i < len(target); i++ {
		if target[i] != '$' || i+1 == len(target) || target[i+1] < '1' || target[i+1] > '9' {
			continue
		}
		n := int(target[i+1] - '0')
		if n > wildcards {
			return Template{}, fmt.Errorf("upstream model %q refers to $%d, but the pattern has %d wildcard(s)", target, n, wildcards)
		}
		if lit < i {
			t.pieces = append(t.pieces, templatePiece{text: target[lit:i]})
			t.size += i - lit
		}
		t.pieces = append(t.pieces, templatePiece{ref: n})
		i++
		lit = i + 1
	}
	if lit < len(target) {
		t.pieces = append(t.pieces, templatePiece{text: target[lit:]})
		t.size += len(target) - lit
	}
	return t, nil
}

// Expand returns the upstream model for the captures caps.
func (t *Template) Expand(caps *[MaxCaptures]string) string {
	if len(t.pieces) == 1 && t.pieces[0].ref == 0 {
		return t.pieces[0].text
	}
	n := t.size
	for _, p := range t.pieces {
		if p.ref > 0 {
			n += len(caps[p.ref-1])
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range t.pieces {
		if p.ref > 0 {
			b.WriteString(caps[p.ref-1])
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}
