package caddymodule

import (
	"fmt"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
)

// maxCaptures is the number of wildcards a model glob may have: the
// target refers to them as $1 to $9.
const maxCaptures = 9

// glob is a compiled model-name pattern: literal text in which each '*'
// matches any run of characters (possibly empty) and captures it. Matching
// is anchored at both ends and allocation-free; each wildcard takes the
// shortest run that lets the rest of the pattern match from left to right,
// so "gpt-*-*" captures "4o" and "mini-2024" from "gpt-4o-mini-2024".
type glob struct {
	// lits are the literal pieces around the wildcards: one more than
	// there are wildcards.
	lits []string
}

// compileGlob parses pattern. It fails for an empty pattern, two adjacent
// wildcards (whose split would be ambiguous) and more than maxCaptures
// wildcards.
func compileGlob(pattern string) (glob, error) {
	if pattern == "" {
		return glob{}, fmt.Errorf("empty model pattern")
	}
	if strings.Contains(pattern, "**") {
		return glob{}, fmt.Errorf("model pattern %q has two adjacent wildcards; use one '*'", pattern)
	}
	lits := strings.Split(pattern, "*")
	if len(lits)-1 > maxCaptures {
		return glob{}, fmt.Errorf("model pattern %q has %d wildcards; at most %d are allowed", pattern, len(lits)-1, maxCaptures)
	}
	return glob{lits: lits}, nil
}

// wildcards returns the number of '*' in the pattern.
func (g *glob) wildcards() int { return len(g.lits) - 1 }

// match reports whether s matches the whole pattern and, when caps is not
// nil, stores the text each wildcard matched in caps[0:g.wildcards()].
func (g *glob) match(s string, caps *[maxCaptures]string) bool {
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

// template is a compiled upstream model name: literal text with $1 to $9
// standing for what the wildcards of the matching glob captured. A '$' not
// followed by a digit from 1 to 9 is literal.
type template struct {
	// pieces alternate literal text and capture references: a piece with
	// ref > 0 inserts capture ref, one with ref 0 inserts text.
	pieces []templatePiece
	size   int // the literal length, to size the result
}

type templatePiece struct {
	text string
	ref  int
}

// compileTemplate parses target, which may refer to at most wildcards
// captures.
func compileTemplate(target string, wildcards int) (template, error) {
	if target == "" {
		return template{}, fmt.Errorf("empty upstream model")
	}
	var t template
	lit := 0
	for i := 0; i < len(target); i++ {
		if target[i] != '$' || i+1 == len(target) || target[i+1] < '1' || target[i+1] > '9' {
			continue
		}
		n := int(target[i+1] - '0')
		if n > wildcards {
			return template{}, fmt.Errorf("upstream model %q refers to $%d, but the pattern has %d wildcard(s)", target, n, wildcards)
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

// expand returns the upstream model for the captures caps.
func (t *template) expand(caps *[maxCaptures]string) string {
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

// modelRoute is one compiled model rule.
type modelRoute struct {
	match  glob
	target template
}

// compileModelRoute compiles one rule of the models list.
func compileModelRoute(r ModelRoute) (modelRoute, error) {
	g, err := compileGlob(r.Match)
	if err != nil {
		return modelRoute{}, err
	}
	t, err := compileTemplate(r.Upstream, g.wildcards())
	if err != nil {
		return modelRoute{}, err
	}
	return modelRoute{match: g, target: t}, nil
}

// routeModel returns the upstream model for the model a client of
// protocol client named: the target of the first rule whose pattern
// matches, else the vendor's name of a cloud's model id going out of the
// cloud (codec.Descriptor.VendorModel), else model itself. routed reports
// whether a rule matched.
func (h *Handler) routeModel(client codec.Protocol, model string) (upstream string, routed bool) {
	var caps [maxCaptures]string
	for i := range h.routes {
		r := &h.routes[i]
		if r.match.match(model, &caps) {
			return r.target.expand(&caps), true
		}
	}
	// A cloud's model id (Bedrock's us.anthropic.claude-…-v1:0) means
	// nothing to another provider, which knows the vendor's name. It is
	// the same model, named as the cloud itself names it in responses, so
	// responses keep the upstream's name.
	if d := client.Descriptor(); d != nil && d.VendorModel != nil && d.Cloud != h.upstream.Descriptor().Cloud {
		return d.VendorModel(model), false
	}
	return model, false
}
