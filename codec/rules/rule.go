package rules

import (
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Reasoning kinds: how a model's reasoning is controlled.
const (
	// ReasoningUnknown leaves reasoning settings as the client gave them.
	ReasoningUnknown = ""
	// ReasoningNone is a model that does not reason; reasoning settings
	// are not sent to it.
	ReasoningNone = "none"
	// ReasoningEffort takes a reasoning effort from Efforts (OpenAI
	// reasoning_effort and reasoning.effort).
	ReasoningEffort = "effort"
	// ReasoningBudget takes a thinking token budget within Budget
	// (Anthropic thinking enabled with budget_tokens, Gemini 2.5
	// thinkingBudget); an Anthropic model that also takes
	// output_config.effort lists the values in Efforts.
	ReasoningBudget = "budget"
	// ReasoningBudgetAdaptive takes a budget or adaptive thinking
	// (Anthropic 4.6 models), with output_config.effort from Efforts.
	ReasoningBudgetAdaptive = "budget+adaptive"
	// ReasoningAdaptive takes only adaptive thinking, its depth set by
	// output_config.effort from Efforts (Claude Opus 4.7, Sonnet 5).
	ReasoningAdaptive = "adaptive"
	// ReasoningLevel takes a thinkingLevel from Efforts and no budget
	// (Gemini 3).
	ReasoningLevel = "level"
	// ReasoningAlways reasons on every request and takes no setting for
	// it (deepseek-reasoner, grok-4).
	ReasoningAlways = "always"
)

// Sampling regimes.
const (
	// SamplingFree takes temperature, top_p and top_k together.
	SamplingFree = ""
	// SamplingExclusive takes temperature or top_p, not both.
	SamplingExclusive = "exclusive"
	// SamplingFixed takes no sampling setting but the default: the model
	// samples only as its provider set it (OpenAI reasoning models,
	// Claude Opus 4.7 and later).
	SamplingFixed = "fixed"
	// SamplingFixedWhenReasoning is SamplingFixed while the model reasons
	// and SamplingFree with reasoning effort none (gpt-5.1 and later,
	// whose default effort is none).
	SamplingFixedWhenReasoning = "fixed-when-reasoning"
)

// What function tools need on Chat Completions.
const (
	// ChatToolsAny takes function tools with any effort.
	ChatToolsAny = ""
	// ChatToolsEffortNone takes function tools only with reasoning
	// effort none, given explicitly or as the model's default (gpt-5.4
	// and later: "Function tools with reasoning_effort are not supported
	// for <model> in /v1/chat/completions").
	ChatToolsEffortNone = "effort-none"
	// ChatToolsResponses takes no function tools on Chat Completions at
	// any effort (models without effort none: GPT-6 Astra, GPT-6.1 Sol).
	ChatToolsResponses = "responses"
)

// How thinking is turned off on an Anthropic model.
const (
	// ThinkingOffDefault is ThinkingOffOmit, unless a row this one is
	// like says otherwise.
	ThinkingOffDefault = ""
	// ThinkingOffOmit turns thinking off by leaving thinking out: the
	// model does not think unless asked (Claude before Sonnet 5), or
	// whether it takes thinking.type disabled is not known.
	ThinkingOffOmit = "omit"
	// ThinkingOffDisabled sends thinking.type disabled: the model thinks
	// when thinking is left out (Claude Sonnet 5, Opus 5, Haiku 5.5;
	// DeepSeek V4, where reasoning_effort none does not turn it off).
	ThinkingOffDisabled = "disabled"
)

// Rule is what one model, or a family of models by glob, accepts. Zero
// fields say nothing: the request is sent as the client made it.
type Rule struct {
	// Provider is whose API the rule describes: anthropic (also on Vertex
	// AI), openai, google (Gemini API and Vertex AI), or an
	// OpenAI-compatible dialect (deepseek, mistral, groq, xai, ...).
	Provider string `json:"provider"`
	// Models are globs of model names in which '*' matches any run of
	// characters. Names are matched without a routing prefix ("models/",
	// "anthropic/", Bedrock's "anthropic." and its region prefixes).
	Models []string `json:"models"`
	// Like names a model whose rule this one starts from: its fields
	// are taken where this rule leaves them zero. Operator rules use it
	// to describe a new model as a known one with a few differences.
	Like string `json:"like,omitempty"`

	// MaxOutput is the largest output-token limit the model takes; a
	// larger limit is lowered to it.
	MaxOutput int64 `json:"max_output,omitempty"`
	// Reasoning is how the model's reasoning is controlled (one of the
	// Reasoning constants).
	Reasoning string `json:"reasoning,omitempty"`
	// Efforts are the reasoning efforts, or Gemini thinking levels, the
	// model takes, by OpenAI name (none, minimal, low, medium, high,
	// xhigh, max).
	Efforts []string `json:"efforts,omitempty"`
	// BudgetMin and BudgetMax bound a thinking budget.
	BudgetMin int64 `json:"budget_min,omitempty"`
	// BudgetMax is the largest thinking budget.
	BudgetMax int64 `json:"budget_max,omitempty"`
	// AlwaysThinks reports that thinking cannot be turned off: a request
	// to turn it off gets the least thinking the model takes.
	AlwaysThinks bool `json:"always_thinks,omitempty"`
	// Sampling is the sampling regime (one of the Sampling constants).
	Sampling string `json:"sampling,omitempty"`
	// NoPrefill reports that a conversation must not end with an
	// assistant message.
	NoPrefill bool `json:"no_prefill,omitempty"`
	// SignedCalls reports that the first function call of each model step
	// in the current turn must carry a thought signature (Gemini 3).
	SignedCalls bool `json:"signed_calls,omitempty"`
	// ResponsesOnly reports that the provider serves the model only
	// through its Responses API: a request toward Chat Completions is
	// refused before it is sent ("This is not a chat model"), naming the
	// upstream that serves it.
	ResponsesOnly bool `json:"responses_only,omitempty"`
	// Retired is the date (YYYY-MM-DD) from which the provider no longer
	// serves the model. The request is still sent (other servers may
	// serve it); from that date, the provider's refusal of it (a 404 or a
	// 400 saying the model does not exist) reaches the client as an error
	// naming the retirement.
	Retired string `json:"retired,omitempty"`
	// VertexLocations are the only Vertex AI locations that serve the
	// model (Gemini 4: global, us, eu); a request toward another
	// vertex_location is refused before it is sent. Empty is every
	// location.
	VertexLocations []string `json:"vertex_locations,omitempty"`
	// Rejects lists request settings the model refuses: stop,
	// presence_penalty, frequency_penalty.
	Rejects []string `json:"rejects,omitempty"`
	// DefaultEffort is the reasoning effort the model uses when a request
	// sets none (OpenAI: none on gpt-5.1 to 5.4, medium on gpt-5.5 and
	// later). The sampling regime and the Chat tools rule read it; it is
	// never written for the client.
	DefaultEffort string `json:"default_effort,omitempty"`
	// ChatTools is what the model requires of function tools on Chat
	// Completions (one of the ChatTools constants); Responses takes them
	// with any effort.
	ChatTools string `json:"chat_tools,omitempty"`
	// ThinkingOff is how thinking is turned off on an Anthropic or
	// DeepSeek model (one of the ThinkingOff constants).
	ThinkingOff string `json:"thinking_off,omitempty"`
	// EffortOn is the value written for every effort above none, for a
	// model that takes only "reasoning on" by its own name (Groq's qwen3:
	// none or default). Efforts then lists none and one other effort.
	EffortOn string `json:"effort_on,omitempty"`
	// CacheMinTokens is the shortest prompt prefix the model caches (the
	// smallest of the row's models), 0 when unknown: llmbridge places no
	// automatic breakpoint before that many tokens, where it would cache
	// nothing.
	CacheMinTokens int64 `json:"cache_min_tokens,omitempty"`
	// CacheFiveMinutesOnlyOn lists the upstream protocols on which the
	// model offers only the five-minute cache lifetime (Bedrock's one-hour
	// lifetime came with the Claude 4.5 models): a breakpoint asking for
	// an hour is written with the default lifetime there.
	CacheFiveMinutesOnlyOn []string `json:"cache_5m_only_on,omitempty"`
	// Verified is the date (YYYY-MM-DD) the row was last checked against
	// its sources.
	Verified string `json:"verified,omitempty"`
	// Sources are where the rule's facts come from.
	Sources []string `json:"sources,omitempty"`
	// Note says what the sources do not, for the Models documentation.
	Note string `json:"note,omitempty"`
	// Price is what the model's tokens cost, when the operator gives it;
	// the access log then carries each request's cost.
	Price *Price `json:"price,omitempty"`

	efforts       effortSet
	defaultEffort mapping.Effort
	retired       time.Time
	rejects       rejectSet
	globs         []glob
	order         int
}

// ProviderRule is a rule that holds for every model of a provider.
type ProviderRule struct {
	// ID names the rule in adjustments and errors.
	ID string `json:"id"`
	// Text states the rule.
	Text string `json:"text"`
	// Sources are where the rule comes from.
	Sources []string `json:"sources"`
}

// Provider is one provider's file of the table: its protocols, the rules
// for all its models, its OpenAI-compatible dialect if it is one, and its
// model rows.
type Provider struct {
	// Name is the provider's name, as rules and dialect settings use it.
	Name string `json:"provider"`
	// Protocols are the upstream protocols that reach it natively.
	Protocols []string `json:"protocols,omitempty"`
	// Rules are the provider-wide rules Fit applies.
	Rules []ProviderRule `json:"rules,omitempty"`
	// Dialect is the provider's departure from OpenAI Chat Completions,
	// for OpenAI-compatible servers.
	Dialect *DialectSpec `json:"dialect,omitempty"`
	// Models are the model rows, most specific first.
	Models []Rule `json:"models,omitempty"`
}

// DialectSpec declares an OpenAI-compatible server's profile; Dialect
// turns it into the codec's.
type DialectSpec struct {
	// SystemRole is the role developer instructions are sent with:
	// "developer" (OpenAI) or "system".
	SystemRole string `json:"system_role"`
	// MaxTokensField is max_completion_tokens or max_tokens.
	MaxTokensField string `json:"max_tokens_field"`
	// ReasoningField is the assistant field reasoning text goes back in:
	// reasoning_content, reasoning, or none.
	ReasoningField string `json:"reasoning_field"`
	// ReasoningInToolLoop reports that assistant tool-call messages of the
	// current tool loop must carry their reasoning.
	ReasoningInToolLoop bool `json:"reasoning_in_tool_loop,omitempty"`
	// StreamOptions reports whether stream_options is accepted.
	StreamOptions bool `json:"stream_options"`
	// ToolCallIDs is "any" or "alnum9".
	ToolCallIDs string `json:"tool_call_ids"`
	// AssistantAfterTool reports that a user message may not follow a
	// tool message; an assistant message is written between them.
	AssistantAfterTool bool `json:"assistant_after_tool,omitempty"`
	// Sources are where the profile's facts come from.
	Sources []string `json:"sources"`
}

// Dialect returns the codec's form of d.
func (d *DialectSpec) Dialect(name string) *codec.Dialect {
	cd := &codec.Dialect{
		Name:                name,
		NoDeveloperRole:     d.SystemRole == "system",
		MaxTokens:           d.MaxTokensField == "max_tokens",
		ReasoningInToolLoop: d.ReasoningInToolLoop,
		NoStreamOptions:     !d.StreamOptions,
		AssistantAfterTool:  d.AssistantAfterTool,
	}
	if d.ReasoningField != "reasoning_content" {
		cd.ReasoningField = d.ReasoningField
	}
	if d.ToolCallIDs == "alnum9" {
		cd.ToolCallIDs = codec.IDAlnum9
	}
	return cd
}

// RetiredAt reports whether the provider no longer serves the model at
// time t: the row has a retirement date and t is on or after it.
func (r *Rule) RetiredAt(t time.Time) bool {
	return !r.retired.IsZero() && !t.Before(r.retired)
}
