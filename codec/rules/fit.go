package rules

import (
	"slices"
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Class says what an adjustment does to the client's request.
type Class uint8

// Adjustment classes.
const (
	// ClassAdjust keeps what the client asked for, in a form the model
	// takes: a value moved into range, a setting the model fixes removed.
	ClassAdjust Class = iota
	// ClassChange changes what the model is asked to do: content or a
	// setting that shapes the answer is removed.
	ClassChange
	// ClassRefuse is a request the model cannot take in any form the
	// upstream protocol can express: it is refused under every policy,
	// with the fix (another upstream protocol) in Why.
	ClassRefuse
)

// Adjustment is one change Fit made to a request.
type Adjustment struct {
	// Rule is the id of the rule that required it, such as
	// "openai.reasoning_effort.values".
	Rule string
	// Param is the upstream request field changed, as the upstream
	// protocol names it.
	Param string
	// Value is what is sent now, or "" when Param is no longer sent.
	Value string
	// Why says what the model does not accept.
	Why string
	// Class is what the change does to the request.
	Class Class
}

// String returns the adjustment as the Llmbridge-Adjusted header lists
// it: "reasoning_effort=high (xhigh not accepted by gpt-5)", or
// "top_p removed (...)".
func (a *Adjustment) String() string {
	s := a.Param
	if a.Value == "" {
		s += " removed"
	} else {
		s += "=" + a.Value
	}
	return s + " (" + a.Why + ")"
}

// Options are what Fit needs beyond the request and the rule.
type Options struct {
	// Protocol is the upstream protocol; it names the fields in
	// adjustments.
	Protocol codec.Protocol
	// Provider is the upstream's provider (ProviderFor), whose
	// provider-wide rules apply even to models without a rule.
	Provider string
	// Model is the upstream model, named in adjustments.
	Model string
	// DefaultMaxTokens is the output limit written toward protocols that
	// require one when the client gave none (codec.EncodeOptions).
	DefaultMaxTokens int64
	// EffortBudgets convert between efforts and budgets, as the encoders
	// do (codec.EncodeOptions).
	EffortBudgets mapping.EffortBudgets
	// Location is the cloud region the upstream's paths name
	// (vertex_location), held to a rule's VertexLocations.
	Location string
}

// Fit changes req where rule r (nil when no rule matches the model) or the
// provider's rules require it, appends every change to adj, and returns
// the codec target the encoder needs for the model. A request that needs
// no change costs no allocation.
func Fit(req *codec.Request, r *Rule, opts *Options, adj []Adjustment) ([]Adjustment, codec.Target) {
	f := fitter{req: req, r: r, opts: opts, adj: adj}
	if r == nil {
		f.r = &noRule
	}
	d := opts.Protocol.Descriptor()
	if d == nil {
		// An unregistered protocol has no names: adjustments name no
		// field.
		d = &codec.Descriptor{}
	}
	f.names = &d.Rules.Params
	if f.r.ResponsesOnly || len(f.r.VertexLocations) > 0 {
		f.availability(d)
	}
	f.reasoning()
	if f.r.ChatTools != ChatToolsAny && d.Rules.API == "chat" {
		f.chatTools()
	}
	f.maxTokens()
	f.sampling()
	switch opts.Provider {
	case "anthropic":
		f.anthropicBudget()
		f.anthropicThinking()
	case "deepseek":
		f.deepseekThinking()
	}
	f.prefill()
	var t codec.Target
	t.ThinkingLevel = f.r.Reasoning == ReasoningLevel
	t.SignedFunctionCalls = f.r.SignedCalls
	t.ThinkingTypeDisabled = f.r.ThinkingOff == ThinkingOffDisabled && d.Rules.API == "chat"
	t.EffortOn = f.r.EffortOn
	t.Cache = codec.CacheTarget{
		MinTokens:       f.r.CacheMinTokens,
		FiveMinutesOnly: slices.Contains(f.r.CacheFiveMinutesOnlyOn, string(opts.Protocol)),
	}
	if t.Cache.FiveMinutesOnly {
		f.cacheHour()
	}
	return f.adj, t
}

var noRule Rule

// availability refuses a request the upstream cannot serve the model for
// in any form: a model served only by the Responses API toward Chat
// Completions, one not served at the configured Vertex AI location. Each
// refusal names what serves it instead.
func (f *fitter) availability(d *codec.Descriptor) {
	r, model := f.r, f.opts.Model
	if r.ResponsesOnly && d.Rules.API == "chat" {
		f.add("openai.chat.responses-only-model", "model", "", model+
			" is served only by the Responses API, not Chat Completions ('This is not a chat model'); upstream openai-responses serves it", ClassRefuse)
	}
	if len(r.VertexLocations) > 0 && d.Cloud == "google" && d.Located && !slices.Contains(r.VertexLocations, f.opts.Location) {
		f.add("google.vertex.locations", "vertex_location", "", model+" is served on Vertex AI only at the locations "+
			strings.Join(r.VertexLocations, ", ")+", not "+strconv.Quote(f.opts.Location), ClassRefuse)
	}
}

// cacheHour gives the request's breakpoints that ask for an hour the
// default lifetime, for a model that offers only five minutes on this
// upstream (which refuses "1h" for it).
func (f *fitter) cacheHour() {
	changed := false
	shorten := func(c *codec.CacheTTL) {
		if *c == codec.Cache1h {
			*c, changed = codec.CacheDefault, true
		}
	}
	var parts func(ps []codec.Part)
	parts = func(ps []codec.Part) {
		for i := range ps {
			shorten(&ps[i].Cache)
			parts(ps[i].Content)
		}
	}
	for i := range f.req.Tools {
		shorten(&f.req.Tools[i].Cache)
	}
	parts(f.req.System)
	for i := range f.req.Messages {
		parts(f.req.Messages[i].Parts)
	}
	shorten(&f.req.Cache.Auto)
	if changed {
		f.add(f.opts.Provider+".cache.ttl", f.names.CacheTTL, "", "a one-hour cache lifetime is not offered for "+f.opts.Model+" on "+string(f.opts.Protocol), ClassAdjust)
	}
}

// fitter holds one Fit call's state.
type fitter struct {
	req   *codec.Request
	r     *Rule
	opts  *Options
	adj   []Adjustment
	names *codec.RuleParams
}

func (f *fitter) add(rule, param, value, why string, class Class) {
	f.adj = append(f.adj, Adjustment{Rule: rule, Param: param, Value: value, Why: why, Class: class})
}

func (f *fitter) notAccepted(what string) string { return what + " not accepted by " + f.opts.Model }

// intent is what a request's reasoning settings ask for.
type intent uint8

const (
	intentUnset intent = iota
	intentOff
	intentAdaptive
	intentBudget
	intentEffort
)

func intentOf(r *codec.Reasoning) intent {
	switch {
	case r.Effort == mapping.EffortNone || r.Budget.Set && r.Budget.Value == 0:
		return intentOff
	case r.Adaptive || r.Budget.Set && r.Budget.Value < 0:
		return intentAdaptive
	case r.Budget.Set:
		return intentBudget
	case r.Effort != mapping.EffortUnset:
		return intentEffort
	}
	return intentUnset
}

// wantedEffort is the effort a request's reasoning stands for: its effort,
// or the effort its budget stands for; EffortUnset for adaptive thinking
// without an effort.
func (f *fitter) wantedEffort(in intent) mapping.Effort {
	r := &f.req.Reasoning
	switch {
	case in == intentOff:
		return mapping.EffortNone
	case r.Effort > mapping.EffortNone:
		return r.Effort
	case in == intentBudget:
		return f.opts.EffortBudgets.Effort(r.Budget.Value)
	}
	return mapping.EffortUnset
}

// reasoning fits the reasoning settings to the model's kind of reasoning.
func (f *fitter) reasoning() {
	r := &f.req.Reasoning
	in := intentOf(r)
	if in == intentUnset && (f.r.Reasoning != ReasoningNone || r.IsZero()) {
		return
	}
	switch f.r.Reasoning {
	case ReasoningNone:
		if in != intentUnset {
			f.add(f.opts.Provider+".reasoning.unsupported", f.names.Reasoning, "", f.opts.Model+" is not a reasoning model", ClassAdjust)
		}
		*r = codec.Reasoning{}
	case ReasoningAlways:
		if in == intentUnset {
			return
		}
		why := f.opts.Model + " always reasons and takes no reasoning setting"
		if in == intentOff {
			why = "reasoning cannot be turned off on " + f.opts.Model
		}
		f.add(f.opts.Provider+".reasoning.always", f.names.Reasoning, "", why, ClassAdjust)
		*r = codec.Reasoning{Summary: r.Summary, Display: r.Display, IncludeThoughts: r.IncludeThoughts}
	case ReasoningEffort:
		f.effortModel(in)
	case ReasoningLevel:
		f.levelModel(in)
	case ReasoningBudget, ReasoningBudgetAdaptive:
		f.budgetModel(in)
	case ReasoningAdaptive:
		f.adaptiveModel(in)
	}
}

// effectiveEffort is the effort the model reasons at: the request's, else
// the model's default (EffortUnset when the table names none).
func (f *fitter) effectiveEffort() mapping.Effort {
	if e := f.req.Reasoning.Effort; e != mapping.EffortUnset {
		return e
	}
	return f.r.defaultEffort
}

// chatTools applies what a model requires of function tools on Chat
// Completions. Effort none is sent where it makes the request valid: as
// an adjustment when the client asked for no reasoning (the model's
// default effort is what breaks the rule), as a change when the client
// asked the model to reason. Responses takes function tools with any
// effort, so the fix the refusal names is that upstream.
func (f *fitter) chatTools() {
	if !hasFunctionTools(f.req) {
		return
	}
	r := &f.req.Reasoning
	const rule = "openai.chat.tools-with-reasoning"
	if f.r.ChatTools == ChatToolsResponses {
		f.add(rule, "tools", "", f.opts.Model+" takes function tools only through the Responses API (upstream openai-responses), at any reasoning effort", ClassRefuse)
		return
	}
	// An effort the table does not know (no effort in the request, no
	// default in the table) is taken to be other than none: every model
	// with this rule takes none.
	e := f.effectiveEffort()
	if e == mapping.EffortNone {
		return
	}
	class := ClassChange
	if intentOf(r) == intentUnset {
		class = ClassAdjust
	}
	what := "reasoning effort " + e.String()
	if e == mapping.EffortUnset {
		what = "the model's default reasoning effort"
	}
	f.add(rule, f.names.Reasoning, "none", "function tools with "+what+" are not accepted by "+f.opts.Model+
		" on Chat Completions; upstream openai-responses takes both", class)
	*r = codec.Reasoning{Effort: mapping.EffortNone, Summary: r.Summary, Display: r.Display, IncludeThoughts: r.IncludeThoughts}
}

// hasFunctionTools reports whether req declares a function tool (custom
// tools become functions toward Chat).
func hasFunctionTools(req *codec.Request) bool {
	for i := range req.Tools {
		if req.Tools[i].Kind != codec.ToolWebSearch {
			return true
		}
	}
	return false
}

// effortModel fits a model that takes an effort (OpenAI).
func (f *fitter) effortModel(in intent) {
	r := &f.req.Reasoning
	want := f.wantedEffort(in)
	if want == mapping.EffortUnset {
		return
	}
	if want == mapping.EffortNone && f.r.ThinkingOff == ThinkingOffDisabled {
		// Written as thinking.type disabled (Target.ThinkingTypeDisabled).
		*r = codec.Reasoning{Effort: mapping.EffortNone}
		return
	}
	got := f.acceptedEffort(want)
	if got != want {
		f.add("openai.reasoning_effort.values", f.names.Reasoning, got.String(), f.notAccepted(want.String()), ClassAdjust)
	}
	*r = codec.Reasoning{Effort: got, Summary: r.Summary, Display: r.Display, IncludeThoughts: r.IncludeThoughts}
}

// acceptedEffort returns the effort of the model's set closest to want;
// a model that takes no none gets its lowest effort for none.
func (f *fitter) acceptedEffort(want mapping.Effort) mapping.Effort {
	s := f.r.efforts
	switch {
	case s.has(want):
		return want
	case want == mapping.EffortNone:
		return s.lowest()
	case want == mapping.EffortMax && s.has(mapping.EffortXHigh):
		return mapping.EffortXHigh
	}
	return s.nearest(want)
}

// levelModel fits a Gemini model that takes thinkingLevel.
func (f *fitter) levelModel(in intent) {
	r := &f.req.Reasoning
	if in == intentAdaptive && r.Effort <= mapping.EffortNone {
		// No level: the model's dynamic default.
		r.Budget, r.Adaptive = codec.OptInt{}, true
		return
	}
	want := f.wantedEffort(in)
	got := f.acceptedEffort(want)
	if want == mapping.EffortNone && f.r.AlwaysThinks {
		got = f.r.efforts.lowest()
	}
	switch {
	case in == intentBudget:
		// Gemini 4 refuses a budget ("Thinking budget is not supported
		// for this model. Use thinking level instead."); Gemini 3 takes it
		// only for backward compatibility.
		f.add("gemini.thinking.budget-as-level", f.names.Level, got.String(),
			f.notAccepted("a thinking budget ("+strconv.FormatInt(r.Budget.Value, 10)+")")+"; the nearest thinking level", ClassAdjust)
	case got != want:
		why := f.notAccepted(want.String())
		if want == mapping.EffortNone {
			why = "thinking cannot be turned off on " + f.opts.Model
		}
		f.add("gemini.thinking.level-values", f.names.Level, got.String(), why, ClassAdjust)
	}
	r.Effort, r.Budget, r.Adaptive = got, codec.OptInt{}, false
}

// budgetModel fits a model that takes a thinking budget (Anthropic before
// 4.7, Gemini 2.5).
func (f *fitter) budgetModel(in intent) {
	r := &f.req.Reasoning
	anthropic := f.opts.Provider == "anthropic"
	switch in {
	case intentOff:
		if f.r.AlwaysThinks {
			b := max(f.r.BudgetMin, 1)
			f.add(f.opts.Provider+".thinking.cannot-disable", f.names.Budget, strconv.FormatInt(b, 10),
				"thinking cannot be turned off on "+f.opts.Model, ClassAdjust)
			r.Effort, r.Budget = mapping.EffortUnset, codec.OptInt{Value: b, Set: true}
		}
		return
	case intentAdaptive:
		if !anthropic || f.r.Reasoning == ReasoningBudgetAdaptive {
			break
		}
		e := r.Effort
		if e <= mapping.EffortNone {
			e = mapping.EffortHigh
		}
		b := f.opts.EffortBudgets.Budget(e)
		f.add("anthropic.thinking.adaptive-unsupported", f.names.Budget, strconv.FormatInt(b, 10), f.notAccepted("adaptive thinking"), ClassAdjust)
		r.Adaptive, r.Budget, r.Effort = false, codec.OptInt{Value: b, Set: true}, mapping.EffortUnset
		in = intentBudget
	case intentEffort:
		r.Budget = codec.OptInt{Value: f.opts.EffortBudgets.Budget(r.Effort), Set: true}
		r.Effort = mapping.EffortUnset
		in = intentBudget
	}
	if in == intentBudget {
		b := r.Budget.Value
		lo, hi := f.r.BudgetMin, f.r.BudgetMax
		if anthropic && lo == 0 {
			lo = 1024
		}
		switch {
		case b < lo:
			b = lo
		case hi > 0 && b > hi:
			b = hi
		}
		if b != r.Budget.Value {
			f.add(f.opts.Provider+".thinking.budget-range", f.names.Budget, strconv.FormatInt(b, 10),
				"a budget of "+strconv.FormatInt(r.Budget.Value, 10)+" is outside "+f.opts.Model+"'s range", ClassAdjust)
			r.Budget.Value = b
		}
	}
	// An Anthropic client's output_config.effort beside its budget.
	if anthropic && r.Effort > mapping.EffortNone {
		got := mapping.EffortUnset
		if f.r.efforts != 0 {
			got = f.acceptedEffort(r.Effort)
		}
		if got != r.Effort {
			f.add("anthropic.effort.supported", "output_config.effort", got.String(), f.notAccepted("effort "+r.Effort.String()), ClassAdjust)
			r.Effort = got
		}
	}
}

// adaptiveModel fits an Anthropic model that takes only adaptive thinking,
// its depth given by output_config.effort.
func (f *fitter) adaptiveModel(in intent) {
	r := &f.req.Reasoning
	if in == intentOff && f.r.ThinkingOff == ThinkingOffDisabled {
		*r = codec.Reasoning{Effort: mapping.EffortNone}
		return
	}
	if in == intentOff {
		// Thinking disabled is a 400 here, or not known to be taken:
		// leaving thinking out is how it is turned off, or left to a
		// model that always thinks.
		why := f.notAccepted("thinking.type disabled")
		if f.r.AlwaysThinks {
			why = "thinking cannot be turned off on " + f.opts.Model
		}
		f.add("anthropic.thinking.cannot-disable", "thinking", "", why, ClassAdjust)
		*r = codec.Reasoning{}
		return
	}
	want := f.wantedEffort(in)
	got := want
	if want != mapping.EffortUnset {
		got = f.acceptedEffort(want)
	}
	if in != intentAdaptive {
		f.add("anthropic.thinking.adaptive-only", "thinking", "adaptive"+effortSuffix(got), f.notAccepted("thinking with a budget"), ClassAdjust)
	} else if got != want {
		f.add("anthropic.effort.supported", "output_config.effort", got.String(), f.notAccepted("effort "+want.String()), ClassAdjust)
	}
	r.Adaptive, r.Budget, r.Effort = true, codec.OptInt{}, got
}

func effortSuffix(e mapping.Effort) string {
	if e <= mapping.EffortNone {
		return ""
	}
	return ", output_config.effort=" + e.String()
}

// thinkingOn reports whether the fitted request asks an Anthropic model
// to think.
func thinkingOn(r *codec.Reasoning) bool {
	in := intentOf(r)
	return in != intentUnset && in != intentOff
}

// maxTokens caps the output limit at the model's.
func (f *fitter) maxTokens() {
	limit := f.r.MaxOutput
	if limit <= 0 {
		return
	}
	req := f.req
	if req.MaxTokens.Set {
		if req.MaxTokens.Value > limit {
			f.add(f.opts.Provider+".max_tokens.model-cap", f.names.MaxTokens, strconv.FormatInt(limit, 10),
				strconv.FormatInt(req.MaxTokens.Value, 10)+" is over "+f.opts.Model+"'s output limit", ClassAdjust)
			req.MaxTokens.Value = limit
		}
		return
	}
	if f.opts.Provider != "anthropic" {
		return
	}
	// Anthropic requires max_tokens: the encoder writes the default, with
	// a thinking budget on top.
	implied := f.opts.DefaultMaxTokens
	if implied <= 0 {
		implied = codec.DefaultMaxTokens
	}
	if r := &req.Reasoning; r.Budget.Set && r.Budget.Value > 0 && !r.Adaptive {
		implied += r.Budget.Value
	} else if intentOf(r) == intentEffort {
		implied += f.opts.EffortBudgets.Budget(r.Effort)
	}
	if implied > limit {
		req.MaxTokens = codec.OptInt{Value: limit, Set: true}
	}
}

// anthropicBudget keeps an Anthropic thinking budget below max_tokens, as
// Anthropic requires: lowered to max_tokens-1 while that is at least
// Anthropic's smallest budget, else thinking is turned off (the client's
// output limit is the harder promise).
func (f *fitter) anthropicBudget() {
	req := f.req
	r := &req.Reasoning
	if !req.MaxTokens.Set || !r.Budget.Set || r.Budget.Value <= 0 || r.Adaptive || r.Budget.Value < req.MaxTokens.Value {
		return
	}
	if b := req.MaxTokens.Value - 1; b >= 1024 {
		f.add("anthropic.thinking.budget-range", f.names.Budget, strconv.FormatInt(b, 10), "the budget must stay below max_tokens", ClassAdjust)
		r.Budget.Value = b
		return
	}
	f.add("anthropic.thinking.budget-range", "thinking", "", "max_tokens leaves no room for the smallest thinking budget", ClassAdjust)
	*r = codec.Reasoning{}
}

// sampling removes or bounds the sampling settings the model refuses.
func (f *fitter) sampling() {
	req := f.req
	n := f.names
	maxTemp := 2.0
	if f.opts.Provider == "anthropic" {
		maxTemp = 1
	}
	if req.Temperature.Set && req.Temperature.Value > maxTemp {
		f.add(f.opts.Provider+".temperature.range", n.Temperature, strconv.FormatFloat(maxTemp, 'g', -1, 64),
			"temperature ranges up to "+strconv.FormatFloat(maxTemp, 'g', -1, 64), ClassAdjust)
		req.Temperature.Value = maxTemp
	}
	regime := f.r.Sampling
	if regime == SamplingFixedWhenReasoning {
		regime = SamplingFree
		if f.effectiveEffort() > mapping.EffortNone {
			regime = SamplingFixed
		}
	}
	switch regime {
	case SamplingFixed:
		why := f.opts.Model + " samples only with its default settings"
		if req.Temperature.Set && req.Temperature.Value != 1 {
			f.add(f.opts.Provider+".sampling.fixed", n.Temperature, "", why, ClassAdjust)
			req.Temperature = codec.OptFloat{}
		}
		if req.TopP.Set && req.TopP.Value != 1 {
			f.add(f.opts.Provider+".sampling.fixed", n.TopP, "", why, ClassAdjust)
			req.TopP = codec.OptFloat{}
		}
		if req.TopK.Set {
			f.add(f.opts.Provider+".sampling.fixed", n.TopK, "", why, ClassAdjust)
			req.TopK = codec.OptInt{}
		}
	case SamplingExclusive:
		if req.Temperature.Set && req.TopP.Set {
			f.add("anthropic.sampling.temperature-xor-top_p", n.TopP, "", f.opts.Model+" takes temperature or top_p, not both", ClassAdjust)
			req.TopP = codec.OptFloat{}
		}
	}
	rej := f.r.rejects
	if rej == 0 {
		return
	}
	if rej&rejectStop != 0 && len(req.StopSequences) > 0 {
		// Without its stop sequences the answer runs on past them.
		f.add(f.opts.Provider+".stop.unsupported", n.Stop, "", f.notAccepted("stop sequences"), ClassChange)
		req.StopSequences = req.StopSequences[:0]
	}
	if rej&rejectPresencePenalty != 0 && req.PresencePenalty.Set {
		f.add(f.opts.Provider+".penalties.unsupported", n.Presence, "", f.notAccepted("presence_penalty"), ClassAdjust)
		req.PresencePenalty = codec.OptFloat{}
	}
	if rej&rejectFrequencyPenalty != 0 && req.FrequencyPenalty.Set {
		f.add(f.opts.Provider+".penalties.unsupported", n.Frequency, "", f.notAccepted("frequency_penalty"), ClassAdjust)
		req.FrequencyPenalty = codec.OptFloat{}
	}
}

// anthropicThinking applies Anthropic's rules for requests with thinking
// on: what cannot be sent with thinking turns thinking off (the answer is
// still the one asked for), and sampling thinking does not take is
// removed.
func (f *fitter) anthropicThinking() {
	req := f.req
	r := &req.Reasoning
	forced := req.ToolChoice.Mode == codec.ToolChoiceRequired || req.ToolChoice.Mode == codec.ToolChoiceNamed
	if f.r.AlwaysThinks {
		// Thinking cannot be turned off for what it does not take.
		if forced {
			f.add("anthropic.thinking.cannot-disable", "tool_choice", "", f.opts.Model+" always thinks and takes no forced tool_choice", ClassChange)
			req.ToolChoice = codec.ToolChoice{}
		}
		if thinkingOn(r) && unsignedToolLoop(req) {
			// The least that can be done: no explicit thinking setting.
			f.add("anthropic.thinking.tool-loop-starts-with-thinking", "thinking", "",
				"the open tool loop's assistant turn has no signed thinking block to continue from", ClassAdjust)
			*r = codec.Reasoning{}
		}
		return
	}
	// A model that is turned off with thinking.type disabled thinks when
	// thinking is left out.
	byDefault := f.r.ThinkingOff == ThinkingOffDisabled
	if !thinkingOn(r) && !(byDefault && intentOf(r) == intentUnset) {
		return
	}
	off := func(rule, why string) {
		if byDefault {
			f.add(rule, "thinking", "disabled", why, ClassAdjust)
			*r = codec.Reasoning{Effort: mapping.EffortNone}
			return
		}
		f.add(rule, "thinking", "", why, ClassAdjust)
		*r = codec.Reasoning{}
	}
	switch {
	case forced:
		off("anthropic.thinking.forced-tool", "thinking is not accepted with a forced tool_choice")
		return
	case endsWithAssistant(req):
		off("anthropic.thinking.prefill", "thinking is not accepted when the conversation ends with an assistant message")
		return
	case unsignedToolLoop(req):
		off("anthropic.thinking.tool-loop-starts-with-thinking",
			"the open tool loop's assistant turn has no signed thinking block to continue from")
		return
	}
	if req.Temperature.Set && req.Temperature.Value != 1 {
		f.add("anthropic.thinking.temperature", "temperature", "", "thinking takes only the default temperature", ClassAdjust)
		req.Temperature = codec.OptFloat{}
	}
	if req.TopK.Set {
		f.add("anthropic.thinking.top_k", "top_k", "", "thinking does not take top_k", ClassAdjust)
		req.TopK = codec.OptInt{}
	}
	if req.TopP.Set && (req.TopP.Value < 0.95 || req.TopP.Value > 1) {
		f.add("anthropic.thinking.top_p-range", "top_p", "", "thinking takes top_p only from 0.95 to 1", ClassAdjust)
		req.TopP = codec.OptFloat{}
	}
}

// deepseekThinking turns thinking off (thinking.type disabled) for a
// request with a forced tool choice toward a DeepSeek model that thinks by
// default: "Thinking mode does not support this tool_choice". The tool is
// still called, as asked.
func (f *fitter) deepseekThinking() {
	req := f.req
	r := &req.Reasoning
	forced := req.ToolChoice.Mode == codec.ToolChoiceRequired || req.ToolChoice.Mode == codec.ToolChoiceNamed
	if !forced || f.r.ThinkingOff != ThinkingOffDisabled || r.Effort == mapping.EffortNone {
		return
	}
	f.add("deepseek.thinking.forced-tool-choice", "thinking", "disabled", "thinking is not accepted with a forced tool_choice by "+f.opts.Model, ClassAdjust)
	*r = codec.Reasoning{Effort: mapping.EffortNone}
}

// prefill removes a trailing assistant message from a model that takes
// none; the model is then asked to answer rather than to continue.
func (f *fitter) prefill() {
	if !f.r.NoPrefill || !endsWithAssistant(f.req) {
		return
	}
	f.add(f.opts.Provider+".prefill.removed", f.names.Messages+"["+strconv.Itoa(len(f.req.Messages)-1)+"]", "",
		f.notAccepted("a conversation that ends with an assistant message (prefill)"), ClassChange)
	f.req.Messages = f.req.Messages[:len(f.req.Messages)-1]
}

// endsWithAssistant reports whether the last message is the model's.
func endsWithAssistant(req *codec.Request) bool {
	n := len(req.Messages)
	return n > 0 && req.Messages[n-1].Role == codec.RoleAssistant
}

// unsignedToolLoop reports whether the conversation ends in an open tool
// loop (tool results answering the last assistant message) whose
// assistant message carries no thinking block Anthropic signed. With
// thinking on, Anthropic requires that message to start with one.
func unsignedToolLoop(req *codec.Request) bool {
	n := len(req.Messages)
	if n < 2 || req.Messages[n-1].Role != codec.RoleUser || !hasPart(req.Messages[n-1].Parts, codec.PartToolResult) {
		return false
	}
	for i := n - 2; i >= 0; i-- {
		m := &req.Messages[i]
		if m.Role != codec.RoleAssistant {
			continue
		}
		if !hasPart(m.Parts, codec.PartToolCall) {
			return false
		}
		for j := range m.Parts {
			p := &m.Parts[j]
			if p.Type == codec.PartReasoning && p.Origin == mapping.FamilyAnthropic && p.Signature != "" {
				return false
			}
		}
		return true
	}
	return false
}

func hasPart(parts []codec.Part, t codec.PartType) bool {
	for i := range parts {
		if parts[i].Type == t {
			return true
		}
	}
	return false
}
