package fit

import (
	"strings"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// A model without a row of its own version that is newer than every row of
// its family (gemini-5-pro after the Gemini 4 rows, claude-opus-6, grok-5)
// is fitted to its family's newest row (rules.Table.Generalize), not to the
// generic rules: the assumption is logged at info level once, with the
// model_rule block that pins it, and noted in Llmbridge-Adjusted on the
// first request. Which rule a model takes is found once per model and
// kept (at most maxFamilies models).

// maxFamilies bounds the models a handler keeps the rule of; beyond it, an
// arbitrary one is forgotten for each new one.
const maxFamilies = 1024

// familyRuleID names the note of a model fitted to its family's newest row.
const familyRuleID = "model_rule.family"

// familyRules are the rules a handler found for its upstream models.
type familyRules struct {
	mu sync.RWMutex
	m  map[string]*familyRule
}

// familyRule is the rule requests to one model are fitted to.
type familyRule struct {
	// rule is the table's row for the model, the family's newest row
	// taken for it, or nil (the generic rules).
	rule *rules.Rule
	// like names a model of the row the rule was taken from, "" when
	// the table has a row for the model itself.
	like string
	// noted is set once Llmbridge-Adjusted carried the note.
	noted atomic.Bool
}

// tableRule returns what the table says of model: its row, or its
// family's newest row, found on the first request and kept.
func (f *Fitter) tableRule(model string) *familyRule {
	fs := f.families
	if fs == nil {
		// A fitter that was not provisioned keeps nothing.
		return f.findRule(model, false)
	}
	fs.mu.RLock()
	fr := fs.m[model]
	fs.mu.RUnlock()
	if fr != nil {
		return fr
	}
	fr = f.findRule(model, true)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m == nil {
		fs.m = make(map[string]*familyRule)
	}
	if kept := fs.m[model]; kept != nil {
		return kept
	}
	if len(fs.m) >= maxFamilies {
		for k := range fs.m {
			delete(fs.m, k)
			break
		}
	}
	fs.m[strings.Clone(model)] = fr
	return fr
}

// findRule looks up the table's rule for model: its row, or its family's
// newest row, which is logged with the model_rule block that pins it when
// tell is set (once per model kept).
func (f *Fitter) findRule(model string, tell bool) *familyRule {
	fr := new(familyRule)
	g, from := f.rules.Generalize(f.Provider, model)
	if g == nil {
		fr.rule = f.rules.Lookup(f.Provider, model)
		return fr
	}
	fr.rule, fr.like = g, likeName(from)
	if tell {
		f.Logger.Info("a model without a row is fitted to its family's newest row; add this model_rule to pin it, or a row of its own",
			zap.String("upstream_model", model), zap.Strings("taken_from", from.Models),
			zap.String("model_rule", policy.RuleBlock([]string{model}, fr.like, &rules.Rule{})))
	}
	return fr
}

// familyNote returns, on the first request to model fitted to its
// family's newest row, the note for Llmbridge-Adjusted.
func (f *Fitter) familyNote(model string) (rules.Adjustment, bool) {
	fr := f.tableRule(model)
	if fr.like == "" || !fr.noted.CompareAndSwap(false, true) {
		return rules.Adjustment{}, false
	}
	return rules.Adjustment{Rule: familyRuleID, Param: "model_rule", Value: "like " + fr.like,
		Why: model + " has no row; it is taken to behave as its family's newest row"}, true
}

// likeName returns a model name the row r is found by (its first glob
// without wildcards), as a model_rule's like names it.
func likeName(r *rules.Rule) string {
	return strings.ReplaceAll(r.Models[0], "*", "")
}
