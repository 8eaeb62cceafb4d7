package mapping

// Effort is a reasoning effort level, OpenAI's vocabulary (Responses
// reasoning.effort, Chat reasoning_effort), which the other protocols'
// thinking budgets and levels are mapped to and from.
type Effort uint8

// Effort levels.
const (
	// EffortUnset means the client asked for no particular effort: nothing
	// is injected toward the upstream.
	EffortUnset Effort = iota
	// EffortNone asks for no reasoning; toward Anthropic it is thinking
	// disabled, toward Gemini a zero thinking budget.
	EffortNone
	// EffortMinimal is the smallest non-zero effort.
	EffortMinimal
	// EffortLow is a low effort.
	EffortLow
	// EffortMedium is a medium effort.
	EffortMedium
	// EffortHigh is a high effort.
	EffortHigh
	// EffortXHigh is OpenAI's highest effort (xhigh; Anthropic has it too).
	EffortXHigh
	// EffortMax is Anthropic's highest effort (output_config.effort max);
	// toward OpenAI it is xhigh.
	EffortMax
	effortCount
)

var effortNames = [...]string{"", "none", "minimal", "low", "medium", "high", "xhigh", "max"}

// String returns the effort's OpenAI name ("" for EffortUnset).
func (e Effort) String() string {
	if e < effortCount {
		return effortNames[e]
	}
	return ""
}

// ParseEffort returns the effort called name and whether the name is one.
func ParseEffort(name string) (Effort, bool) {
	for e := EffortNone; e < effortCount; e++ {
		if effortNames[e] == name {
			return e, true
		}
	}
	return EffortUnset, false
}

// EffortBudgets are the thinking token budgets that stand for each non-zero
// effort toward protocols that take a budget (Anthropic budget_tokens,
// Gemini thinkingBudget). They are configurable (Caddyfile
// reasoning_budget); a zero field means the default.
type EffortBudgets struct {
	// Minimal is the budget for EffortMinimal (default 1024, Anthropic's
	// smallest allowed budget).
	Minimal int64
	// Low is the budget for EffortLow (default 2048).
	Low int64
	// Medium is the budget for EffortMedium (default 8192).
	Medium int64
	// High is the budget for EffortHigh (default 24576, Gemini 2.5 Flash's
	// largest budget).
	High int64
	// XHigh is the budget for EffortXHigh (default 32768).
	XHigh int64
	// Max is the budget for EffortMax (default 63999, under Claude's
	// 64000-token output limit).
	Max int64
}

// DefaultEffortBudgets are the budgets used when none are configured.
var DefaultEffortBudgets = EffortBudgets{Minimal: 1024, Low: 2048, Medium: 8192, High: 24576, XHigh: 32768, Max: 63999}

// Budget returns the thinking budget for a non-zero effort e, and 0 for
// EffortUnset and EffortNone.
func (b EffortBudgets) Budget(e Effort) int64 {
	pick := func(v, def int64) int64 {
		if v > 0 {
			return v
		}
		return def
	}
	d := DefaultEffortBudgets
	switch e {
	case EffortMinimal:
		return pick(b.Minimal, d.Minimal)
	case EffortLow:
		return pick(b.Low, d.Low)
	case EffortMedium:
		return pick(b.Medium, d.Medium)
	case EffortHigh:
		return pick(b.High, d.High)
	case EffortXHigh:
		return pick(b.XHigh, d.XHigh)
	case EffortMax:
		return pick(b.Max, d.Max)
	}
	return 0
}

// Effort returns the effort a thinking budget stands for: 0 is EffortNone,
// and a positive budget is the smallest effort whose budget is at least as
// large (Max above all of them). A negative budget (Gemini's -1, dynamic)
// is EffortUnset: the model decides, which OpenAI expresses by sending no
// effort.
func (b EffortBudgets) Effort(budget int64) Effort {
	switch {
	case budget < 0:
		return EffortUnset
	case budget == 0:
		return EffortNone
	}
	for e := EffortMinimal; e < EffortMax; e++ {
		if budget <= b.Budget(e) {
			return e
		}
	}
	return EffortMax
}
