package codec

// ModelRules is what the model rules (package codec/rules) need to know of
// a protocol: whose rules govern its upstreams, which of the provider's
// APIs it is, and what it calls the request fields a rule changes. Every
// protocol has them: a sibling whose ModelRules are zero takes its
// family's, and Register rejects a protocol left without a Provider or
// Params.
type ModelRules struct {
	// Provider is the provider whose model rules govern an upstream of
	// the protocol, as the rule table names it ("openai", "anthropic",
	// "google"). A dialect setting names another for a protocol whose
	// family has Dialects.
	Provider string
	// API is which of the provider's APIs the protocol is, where the rule
	// table's rules differ between them: "chat" for OpenAI's Chat
	// Completions, whose rules on function tools with reasoning
	// (chat_tools) the Responses API does not share; "" otherwise.
	API string
	// Params are the protocol's names of the request fields the rules
	// change.
	Params RuleParams
}

// RuleParams are a protocol's names of the request fields model rules
// change, as adjustments name them (the Llmbridge-Adjusted header) and as
// the family's FitBody takes them (BodyFitter). A name is a path of
// members joined by '.'.
type RuleParams struct {
	// Reasoning is the reasoning setting as a whole, Budget its thinking
	// budget and Level its effort level; a protocol with one reasoning
	// field names it three times.
	Reasoning, Budget, Level string
	// MaxTokens is the output limit.
	MaxTokens string
	// Temperature, TopP and TopK are the sampling settings.
	Temperature, TopP, TopK string
	// Stop is the stop sequences.
	Stop string
	// Presence and Frequency are the presence and frequency penalties.
	Presence, Frequency string
	// Messages is the conversation's turns; an adjustment names a turn
	// as Messages followed by its index in brackets.
	Messages string
	// CacheTTL is the lifetime of a prompt-cache breakpoint, for a
	// protocol that has breakpoints ("" for one that has none).
	CacheTTL string
}

// complete reports whether every name is set.
func (n *RuleParams) complete() bool {
	return n.Reasoning != "" && n.Budget != "" && n.Level != "" && n.MaxTokens != "" && n.Temperature != "" &&
		n.TopP != "" && n.TopK != "" && n.Stop != "" && n.Presence != "" && n.Frequency != "" && n.Messages != ""
}
