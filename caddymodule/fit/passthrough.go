package fit

import (
	"bytes"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// A passthrough body is the client's own, made for the model it named. When
// a model setting routes it to another model, whose rules may differ
// (Claude Code's budget thinking toward claude-opus-4-7, which takes only
// adaptive thinking), the body is fitted to the routed model: decoded to
// find what the rules change, then edited only there, every other byte
// kept. A body llmbridge cannot decode is forwarded as it is.

// FitPassthrough fits body, of client protocol p, to model model of
// upstream protocol upstream, editing it only where the rules change it.
func (f *Fitter) FitPassthrough(body []byte, p, upstream codec.Protocol, model string) ([]byte, []rules.Adjustment, *codec.Error) {
	// What the model was seen to refuse that the canonical request cannot
	// hold (Learn): thinking type between_tools, an effort beside
	// disabled thinking.
	var learned []rules.Adjustment
	lr := f.Lessons.Lookup(model)
	if lr != nil {
		if edited, ok := AdaptiveForBetweenTools(body); ok && lr.AdaptiveForBetweenTools {
			body = edited
			learned = append(learned, rules.Adjustment{Rule: rules.LessonBetweenTools, Param: "thinking.type", Value: "adaptive",
				Why: "thinking.type between_tools is not accepted by " + model})
		}
	}
	req := new(codec.Request)
	if err := codec.DecodeRequest(p, body, req); err != nil {
		return body, nil, nil
	}
	target, adj, cerr := f.Fit(req, upstream, model)
	if cerr != nil {
		return body, nil, cerr
	}
	if lr != nil && lr.Fix.Param != "" && req.Reasoning.Effort == mapping.EffortNone && gjson.GetBytes(body, lr.Fix.Param).Exists() {
		// The one fix in a body field: an effort beside disabled
		// thinking, which the decoded request dropped.
		learned = append(learned, lr.Fix)
	}
	for _, a := range learned {
		if !slices.ContainsFunc(adj, func(b rules.Adjustment) bool { return b.Param == a.Param }) {
			adj = append(adj, a)
		}
	}
	params := make([]string, 0, len(adj))
	for i := range adj {
		if adj[i].Rule != familyRuleID {
			params = append(params, adj[i].Param)
		}
	}
	out, err := codec.FitBody(p, body, req, params, target)
	if err != nil {
		return body, nil, codec.NewError(mapping.ErrInvalidRequest, "request body could not be fitted to "+model+": "+err.Error())
	}
	return out, adj, nil
}

// CacheHourRefused reports whether body, a passthrough body toward model
// on upstream, may ask for the one-hour cache lifetime that the model's
// rule says it does not have there. Most upstreams have no such model,
// and a request toward them pays nothing here; otherwise the model's rule
// is looked up, and the body's bytes are searched only for such a model.
func (f *Fitter) CacheHourRefused(upstream codec.Protocol, model string, body []byte) bool {
	if !f.cacheHourLimited {
		return false
	}
	r := f.RuleFor(model)
	return r != nil && slices.Contains(r.CacheFiveMinutesOnlyOn, string(upstream)) && bytes.Contains(body, []byte(`"1h"`))
}
