package caddymodule

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// Model rules: before a translated request is encoded, it is fitted to
// what its upstream model accepts (package rules). The capability policy
// decides what happens to each adjustment:
//
//   - safe (the default) makes the adjustments that keep the client's
//     intent (rules.ClassAdjust) and refuses the request, with a 400 in the
//     client's format naming the rule, where an adjustment would change
//     what the model is asked (rules.ClassChange);
//   - lenient makes both kinds;
//   - strict refuses the request for any adjustment.
//
// A request no form of the upstream protocol carries (rules.ClassRefuse)
// is refused under every policy, the message naming the fix.
//
// Every adjustment made is listed in the Llmbridge-Adjusted response
// header, logged at debug level and counted in the adjustments_total
// metric. Passthrough pairs are fitted only when model routing sent them to
// another model than the one their body was made for (passthrough_fit.go).

// provisionRules builds the handler's rule table from the built-in rows and
// the configured ones, and resolves the dialect.
func (h *Handler) provisionRules() error {
	rows := slices.DeleteFunc(policy.Rows(h.ModelRules, h.provider), func(r rules.Rule) bool { return observe.PriceOnly(&r) })
	t, err := rules.Builtin().With(rows)
	if err != nil {
		return err
	}
	h.rules = t
	h.cacheHourLimited = slices.ContainsFunc(t.Rows(h.provider), func(r *rules.Rule) bool {
		return slices.Contains(r.CacheFiveMinutesOnlyOn, string(h.upstream))
	})
	h.dialect, err = t.Dialect(h.Dialect)
	return err
}

// fitModel fits req to the upstream model's rules (learned ones first,
// learn.go). It returns the codec target for the encoder and the
// adjustments made, or the error that refuses the request under the
// policy.
func (h *Handler) fitModel(req *codec.Request, upstream codec.Protocol, model string) (codec.Target, []rules.Adjustment, *codec.Error) {
	opts := h.fitOptions(upstream, model)
	adj, target := rules.Fit(req, h.ruleFor(model), &opts, nil)
	target.Dialect = h.dialect
	for i := range adj {
		a := &adj[i]
		if _, refused := h.refusal(a); !refused {
			continue
		}
		return target, adj, h.refusalError(model, a)
	}
	if note, ok := h.familyNote(model); ok {
		adj = append(adj, note)
	}
	return target, adj, nil
}

// refusalError is llmbridge's refusal of a request to model that the
// policy does not make adjustment a for.
func (h *Handler) refusalError(model string, a *rules.Adjustment) *codec.Error {
	how, _ := h.refusal(a)
	return &codec.Error{Status: http.StatusBadRequest, Kind: mapping.ErrInvalidRequest, Param: a.Param,
		Message: "model " + model + " does not accept the request as it is: " + a.Why + " (rule " + a.Rule + "); " + how}
}

// fitOptions are the options requests to model on upstream are fitted
// with.
func (h *Handler) fitOptions(upstream codec.Protocol, model string) rules.Options {
	return rules.Options{Protocol: upstream, Provider: h.provider, Model: model, DefaultMaxTokens: h.DefaultMaxTokens, Location: h.location.Region}
}

// explainRetired rewrites body, the upstream's refusal (status) of a
// request for model, when the table marks the model retired by now and the
// refusal is the provider's "no such model" (a 404 or 410, or a 400 saying
// the model does not exist or was decommissioned): the client gets an
// error naming the retirement, written in the upstream's protocol so that
// the writer translates it as it would the provider's.
func (h *Handler) explainRetired(upstream codec.Protocol, model string, status int, hdr http.Header, body *[]byte) {
	if body == nil || model == "" || status != http.StatusNotFound && status != http.StatusGone && status != http.StatusBadRequest {
		return
	}
	r := h.ruleFor(model)
	if r == nil || r.Retired == "" || !r.RetiredAt(time.Now()) {
		return
	}
	if status == http.StatusBadRequest {
		msg := strings.ToLower(decodeUpstreamError(upstream, status, hdr, *body).Message)
		if !strings.Contains(msg, "decommissioned") && !strings.Contains(msg, "does not exist") && !strings.Contains(msg, "not found") {
			return
		}
	}
	e := &codec.Error{Status: status, Kind: mapping.KindForStatus(status), Param: "model",
		Message: "model " + model + " was retired by " + r.Provider + " on " + r.Retired + " and is no longer served (rule " +
			r.Provider + ".model.retired); choose a current model"}
	*body = codec.AppendError((*body)[:0], upstream, e)
}

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
func (h *Handler) tableRule(model string) *familyRule {
	f := h.families
	if f == nil {
		// A handler that was not provisioned keeps nothing.
		fr := new(familyRule)
		if g, from := h.rules.Generalize(h.provider, model); g != nil {
			fr.rule, fr.like = g, likeName(from)
		} else {
			fr.rule = h.rules.Lookup(h.provider, model)
		}
		return fr
	}
	f.mu.RLock()
	fr := f.m[model]
	f.mu.RUnlock()
	if fr != nil {
		return fr
	}
	fr = new(familyRule)
	if g, from := h.rules.Generalize(h.provider, model); g != nil {
		fr.rule, fr.like = g, likeName(from)
		h.logger.Info("a model without a row is fitted to its family's newest row; add this model_rule to pin it, or a row of its own",
			zap.String("upstream_model", model), zap.Strings("taken_from", from.Models),
			zap.String("model_rule", policy.RuleBlock([]string{model}, fr.like, &rules.Rule{})))
	} else {
		fr.rule = h.rules.Lookup(h.provider, model)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = make(map[string]*familyRule)
	}
	if kept := f.m[model]; kept != nil {
		return kept
	}
	if len(f.m) >= maxFamilies {
		for k := range f.m {
			delete(f.m, k)
			break
		}
	}
	f.m[strings.Clone(model)] = fr
	return fr
}

// familyNote returns, on the first request to model fitted to its
// family's newest row, the note for Llmbridge-Adjusted.
func (h *Handler) familyNote(model string) (rules.Adjustment, bool) {
	fr := h.tableRule(model)
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

// refusal reports whether the policy refuses adjustment a rather than
// making it, and what would be sent otherwise.
func (h *Handler) refusal(a *rules.Adjustment) (string, bool) {
	switch {
	case a.Class == rules.ClassRefuse:
		return "no form of the request reaches the model through this upstream protocol", true
	case h.policy == policy.Strict:
		return "on_unsupported strict refuses every adjustment; safe would send " + a.String(), true
	case h.policy == policy.Safe && a.Class == rules.ClassChange:
		return "this would change what the model is asked; on_unsupported lenient sends " + a.String(), true
	}
	return "", false
}

// reportAdjusted publishes adjustments: the Llmbridge-Adjusted header, a
// debug log line and the adjustments_total metric.
func (h *Handler) reportAdjusted(w http.ResponseWriter, model string, adj []rules.Adjustment) {
	if len(adj) == 0 {
		return
	}
	texts := make([]string, len(adj))
	ids := make([]string, len(adj))
	for i := range adj {
		texts[i] = adj[i].String()
		ids[i] = adj[i].Rule
		h.metrics.RecordAdjusted(adj[i].Rule)
	}
	w.Header().Set("Llmbridge-Adjusted", observe.HeaderList(texts))
	h.logger.Debug("request fitted to the upstream model", zap.String("upstream_model", model),
		zap.Strings("adjustments", texts), zap.Strings("rules", ids), zap.String("on_unsupported", h.policy.String()))
}
