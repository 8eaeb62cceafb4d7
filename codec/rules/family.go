package rules

import (
	"strconv"
	"strings"
)

// A model without a row of its own is often the next version of a family
// the table knows: gemini-5-pro after the Gemini 4 rows, claude-opus-6
// after Opus 5.5, grok-5 after grok-4.7. Such a model is taken to behave
// like its family's newest row, which is far closer to the truth than the
// generic behaviour of a model the table knows nothing of: a Gemini model
// that takes thinking levels gets no thinkingBudget, its function calls
// carry signatures. A model whose family has no versioned row, or whose
// version is not newer than every row of its family, is looked up as
// usual.

// modelName is a model name read as a family, a version and a variant:
// "claude-opus-4-5-20251101" is the family claude-opus at version 4.5,
// "gemini-3.8-flash" the family gemini at 3.8 with the variant flash,
// "qwen3.6-27b" the family qwen at 3.6 with the variant 27b.
type modelName struct {
	family  string
	version version
	variant string // the first word after the version, or ""
}

// version is a major and a minor version. The minor version is read as a
// decimal fraction, so that 4.20 comes before 4.3 as it did in time.
type version struct {
	major int
	minor string // the digits after the point, "" for none
	ok    bool
}

// newer reports whether v is a later version than w.
func (v version) newer(w version) bool {
	if v.major != w.major {
		return v.major > w.major
	}
	a, b := strings.TrimRight(v.minor, "0"), strings.TrimRight(w.minor, "0")
	for len(a) < len(b) {
		a += "0"
	}
	for len(b) < len(a) {
		b += "0"
	}
	return a > b
}

func (v version) String() string {
	s := strconv.Itoa(v.major)
	if v.minor != "" {
		s += "." + v.minor
	}
	return s
}

// parseModelName reads name (without routing prefixes) as a family, a
// version and a variant. A name without a version, or whose family is not
// a word, has none (ok false).
func parseModelName(name string) (modelName, bool) {
	words := strings.Split(name, "-")
	var family []string
	i := 0
	for ; i < len(words) && isWord(words[i]); i++ {
		family = append(family, words[i])
	}
	if i == len(words) {
		return modelName{}, false
	}
	w := words[i]
	if w == "" {
		return modelName{}, false
	}
	if len(family) == 0 || !isDigit(w[0]) {
		// A word with the version in its tail: qwen3.6, o4, v4.
		j := strings.IndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' })
		if j <= 0 || !isWord(w[:j]) {
			return modelName{}, false
		}
		family = append(family, w[:j])
		w = w[j:]
	}
	var n modelName
	n.family = strings.Join(family, "-")
	major, rest := leadingDigits(w)
	if major == "" || len(major) > 3 {
		return modelName{}, false
	}
	n.version.major, _ = strconv.Atoi(major)
	n.version.ok = true
	tail := ""
	if minor, ok := strings.CutPrefix(rest, "."); ok {
		n.version.minor, tail = leadingDigits(minor)
	} else {
		tail = rest
		// Claude writes the minor version as a word of its own
		// (claude-opus-4-5), which a date or a size is not.
		if i+1 < len(words) && len(words[i+1]) <= 2 && allDigits(words[i+1]) {
			n.version.minor = words[i+1]
			i++
		}
	}
	switch {
	case tail != "":
		n.variant = tail
	case i+1 < len(words):
		n.variant = words[i+1]
	}
	return n, true
}

// isWord reports whether s is letters only.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	d, rest := leadingDigits(s)
	return d != "" && rest == ""
}

// leadingDigits splits s after its leading digits.
func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// globName reads the literal start of glob g (up to its first wildcard)
// as a model name; a glob whose start names no version has none.
func globName(g string) (modelName, bool) {
	prefix, _, wild := strings.Cut(g, "*")
	if !wild && prefix == "" {
		return modelName{}, false
	}
	return parseModelName(baseModel(prefix))
}

// Generalize returns the rule a model of provider without a row of its
// own version is taken to follow, and the row it was taken from: when the
// model's family has versioned rows and the model's version is newer than
// all of them, a copy of the family's newest row that matches model alone
// and says where it came from. The newest row is the one of the newest
// version for the model's variant, else the newest version's row for any
// variant, else the newest major version's row for any variant, else the
// row the model's name matches, else the first of the newest version. It
// returns nil, nil for any other model, which is looked up as usual
// (Lookup). It is not meant for every request: callers keep its answer
// per model.
func (t *Table) Generalize(provider, model string) (rule, from *Rule) {
	name, ok := parseModelName(baseModel(model))
	if !ok {
		return nil, nil
	}
	type candidate struct {
		name modelName
		row  *Rule
	}
	var family []candidate
	var newest version
	for _, r := range t.rows {
		if r.Provider != provider {
			continue
		}
		for _, g := range r.Models {
			gn, ok := globName(g)
			if !ok || gn.family != name.family {
				continue
			}
			if !name.version.newer(gn.version) {
				// A row of this version or a later one: the model is
				// not newer than its family's rows.
				return nil, nil
			}
			family = append(family, candidate{gn, r})
			if gn.version.newer(newest) || !newest.ok {
				newest = gn.version
			}
		}
	}
	if len(family) == 0 {
		return nil, nil
	}
	pick := func(match func(c *candidate) bool) *Rule {
		for i := range family {
			if match(&family[i]) {
				return family[i].row
			}
		}
		return nil
	}
	isNewest := func(c *candidate) bool { return !newest.newer(c.name.version) }
	from = pick(func(c *candidate) bool { return isNewest(c) && name.variant != "" && c.name.variant == name.variant })
	if from == nil {
		from = pick(func(c *candidate) bool { return isNewest(c) && c.name.variant == "" })
	}
	if from == nil {
		var best *candidate
		for i := range family {
			c := &family[i]
			if c.name.version.major == newest.major && c.name.variant == "" && (best == nil || c.name.version.newer(best.name.version)) {
				best = c
			}
		}
		if best != nil {
			from = best.row
		}
	}
	if from == nil {
		from = t.Lookup(provider, model)
	}
	if from == nil {
		from = pick(isNewest)
	}
	g := *from
	g.Models = []string{model}
	g.Like = ""
	g.Retired = ""
	g.Price = nil
	g.Sources = append([]string{"taken from the row " + strings.Join(from.Models, ", ") + ", the newest of the " +
		name.family + " family (" + model + " is version " + name.version.String() + ", newer than " + newest.String() + ")"}, from.Sources...)
	if err := g.compile(); err != nil {
		return nil, nil
	}
	return &g, from
}
