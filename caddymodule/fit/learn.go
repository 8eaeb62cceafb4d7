package fit

import (
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// What the fitter does for errors that teach: it reads a refusal (Learn)
// and fits the refused request again with the lesson (Refit). The retry
// itself, and keeping the lesson once the retry succeeds, are the
// handler's: they rewind the attempt's writer and send the request again.

// RuleFor returns the rule a request to model is fitted to: the learned
// one, else the table's (its row, or its family's newest row).
func (f *Fitter) RuleFor(model string) *rules.Rule {
	if lr := f.Lessons.Lookup(model); lr != nil {
		return lr.Rule
	}
	return f.tableRule(model).rule
}

// Learn reads a refusal of model (its status and message) for what it
// teaches: the model's rule with the lesson applied, the lesson, and what
// keeping it stores (in Lessons, once a retry confirms it); false when it
// names nothing known. Another instance's lesson is read from its refusal
// the same way.
func (f *Fitter) Learn(model string, status int, message string) (*rules.Rule, rules.Lesson, *policy.Lesson, bool) {
	base := f.RuleFor(model)
	lesson, ok := rules.Learn(base, message)
	if !ok {
		return nil, lesson, nil, false
	}
	like, delta := "", lesson.Rule
	if lr := f.Lessons.Lookup(model); lr != nil {
		like, delta = lr.Like, lesson.Rule.Over(&lr.Delta)
	} else if fr := f.tableRule(model); fr.like != "" {
		like = fr.like
	} else if base != nil {
		like = model
	}
	reason := strconv.Itoa(status) + " " + message
	rule, err := rules.Learned(f.Provider, model, base, &lesson, reason)
	if err != nil {
		f.Logger.Debug("the upstream's refusal teaches no valid rule", zap.String("upstream_model", model), zap.Error(err))
		return nil, lesson, nil, false
	}
	delta.Sources = append(delta.Sources, "learned from the provider's "+reason)
	lr := &policy.Lesson{Rule: rule, Delta: delta, Like: like, AdaptiveForBetweenTools: lesson.ID == rules.LessonBetweenTools}
	if lesson.Param != "" {
		lr.Fix = lesson.Fix(model)
	}
	if kept := f.Lessons.Lookup(model); kept != nil {
		lr.AdaptiveForBetweenTools = lr.AdaptiveForBetweenTools || kept.AdaptiveForBetweenTools
		if lr.Fix.Param == "" {
			lr.Fix = kept.Fix
		}
	}
	return rule, lesson, lr, true
}

// Refit fits req, a request to model refused with lesson, to rule, the
// model's rule with the lesson applied, and reports the fix (the target
// keeps dialect, the first attempt's): false when it changes nothing (the same request would
// get the same answer) or is one the policy does not make. A lesson whose
// fix Fit does not report (rules.Lesson.Param) is reported as it is. When
// no form of the request reaches the model (rules.ClassRefuse), the
// refusing adjustment is returned too.
func (f *Fitter) Refit(req *codec.Request, rule *rules.Rule, upstream codec.Protocol, model string, lesson rules.Lesson, dialect *codec.Dialect) ([]rules.Adjustment, codec.Target, *rules.Adjustment, bool) {
	opts := f.options(upstream, model)
	adj, target := rules.Fit(req, rule, &opts, nil)
	if len(adj) == 0 && lesson.Param != "" {
		adj = append(adj, lesson.Fix(model))
	}
	if len(adj) == 0 {
		return nil, target, nil, false
	}
	for i := range adj {
		if _, refused := f.refusal(&adj[i]); refused {
			f.Logger.Debug("the upstream's refusal teaches a fix the policy does not make",
				zap.String("upstream_model", model), zap.String("fix", adj[i].String()), zap.String("on_unsupported", f.Policy.String()))
			if adj[i].Class == rules.ClassRefuse {
				return nil, target, &adj[i], false
			}
			return nil, target, nil, false
		}
	}
	target.Dialect = dialect
	return adj, target, nil, true
}

// AdaptiveForBetweenTools returns body with thinking type between_tools,
// which only Claude Sonnet 5.5 takes (and only at effort high or below),
// written as adaptive thinking, which every model that takes
// between_tools takes too, and true; body itself and false when it has
// none.
func AdaptiveForBetweenTools(body []byte) ([]byte, bool) {
	if gjson.GetBytes(body, "thinking.type").Str != "between_tools" {
		return body, false
	}
	out, err := sjson.SetBytes(slices.Clone(body), "thinking.type", "adaptive")
	if err != nil {
		return body, false
	}
	return out, true
}
