package fit

import (
	"net/http"
	"slices"

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
// another model than the one their body was made for (FitPassthrough).

// Fitter fits one site's requests to what its upstream's models accept,
// under the site's capability policy. Its exported fields are set before
// Provision; a Fitter is then read by every request at once.
type Fitter struct {
	// Upstream is the protocol the site's requests are sent in, and
	// Provider the rule table's provider of its models.
	Upstream codec.Protocol
	Provider string

	// Policy is the capability policy (on_unsupported), and Drops the
	// paths the drop setting removes from every body.
	Policy policy.Level
	Drops  []policy.Drop

	// Lessons are the rules the provider's refusals taught (errors that
	// teach), which come before the table's; nil when none are kept.
	Lessons *policy.Lessons

	// DefaultMaxTokens is the output cap a request without one is sent
	// with; Region is the upstream's region, where rules differ by it.
	DefaultMaxTokens int64
	Region           string

	// Logger and Metrics report the adjustments and the dropped fields.
	Logger  *zap.Logger
	Metrics *observe.Metrics

	rules   *rules.Table
	dialect *codec.Dialect
	// cacheHourLimited reports that a model of the provider has the
	// one-hour cache lifetime on other upstreams only, not on Upstream.
	cacheHourLimited bool
	// families are the rules models are fitted to, found once per model
	// (a model newer than its family's rows).
	families *familyRules
}

// Provision builds the rule table from the built-in rows and modelRules
// (the configured model_rule blocks; those that only set prices are left
// out), and resolves the dialect the upstream speaks ("" for none).
func (f *Fitter) Provision(modelRules []rules.Rule, dialect string) error {
	rows := slices.DeleteFunc(policy.Rows(modelRules, f.Provider), func(r rules.Rule) bool { return observe.PriceOnly(&r) })
	t, err := rules.Builtin().With(rows)
	if err != nil {
		return err
	}
	f.rules = t
	f.cacheHourLimited = slices.ContainsFunc(t.Rows(f.Provider), func(r *rules.Rule) bool {
		return slices.Contains(r.CacheFiveMinutesOnlyOn, string(f.Upstream))
	})
	f.families = new(familyRules)
	f.dialect, err = t.Dialect(dialect)
	return err
}

// Rules is the rule table Provision built.
func (f *Fitter) Rules() *rules.Table { return f.rules }

// Dialect is the dialect of the OpenAI-compatible server the upstream is,
// nil for OpenAI itself or another protocol.
func (f *Fitter) Dialect() *codec.Dialect { return f.dialect }

// Fit fits req to the upstream model's rules (learned ones first). It returns the codec target for the encoder and the
// adjustments made, or the error that refuses the request under the
// policy.
func (f *Fitter) Fit(req *codec.Request, upstream codec.Protocol, model string) (codec.Target, []rules.Adjustment, *codec.Error) {
	opts := f.options(upstream, model)
	adj, target := rules.Fit(req, f.RuleFor(model), &opts, nil)
	target.Dialect = f.dialect
	for i := range adj {
		a := &adj[i]
		if _, refused := f.refusal(a); !refused {
			continue
		}
		return target, adj, f.RefusalError(model, a)
	}
	if note, ok := f.familyNote(model); ok {
		adj = append(adj, note)
	}
	return target, adj, nil
}

// RefusalError is llmbridge's refusal of a request to model that the
// policy does not make adjustment a for.
func (f *Fitter) RefusalError(model string, a *rules.Adjustment) *codec.Error {
	how, _ := f.refusal(a)
	return &codec.Error{Status: http.StatusBadRequest, Kind: mapping.ErrInvalidRequest, Param: a.Param,
		Message: "model " + model + " does not accept the request as it is: " + a.Why + " (rule " + a.Rule + "); " + how}
}

// options are the options requests to model on upstream are fitted
// with.
func (f *Fitter) options(upstream codec.Protocol, model string) rules.Options {
	return rules.Options{Protocol: upstream, Provider: f.Provider, Model: model, DefaultMaxTokens: f.DefaultMaxTokens, Location: f.Region}
}

// refusal reports whether the policy refuses adjustment a rather than
// making it, and what would be sent otherwise.
func (f *Fitter) refusal(a *rules.Adjustment) (string, bool) {
	switch {
	case a.Class == rules.ClassRefuse:
		return "no form of the request reaches the model through this upstream protocol", true
	case f.Policy == policy.Strict:
		return "on_unsupported strict refuses every adjustment; safe would send " + a.String(), true
	case f.Policy == policy.Safe && a.Class == rules.ClassChange:
		return "this would change what the model is asked; on_unsupported lenient sends " + a.String(), true
	}
	return "", false
}

// ReportAdjusted publishes adjustments: the Llmbridge-Adjusted header, a
// debug log line and the adjustments_total metric.
func (f *Fitter) ReportAdjusted(w http.ResponseWriter, model string, adj []rules.Adjustment) {
	if len(adj) == 0 {
		return
	}
	texts := make([]string, len(adj))
	ids := make([]string, len(adj))
	for i := range adj {
		texts[i] = adj[i].String()
		ids[i] = adj[i].Rule
		f.Metrics.RecordAdjusted(adj[i].Rule)
	}
	w.Header().Set("Llmbridge-Adjusted", observe.HeaderList(texts))
	f.Logger.Debug("request fitted to the upstream model", zap.String("upstream_model", model),
		zap.Strings("adjustments", texts), zap.Strings("rules", ids), zap.String("on_unsupported", f.Policy.String()))
}
