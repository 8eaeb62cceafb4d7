package codec

import (
	"strings"
	"unsafe"

	"github.com/llmbridge/llmbridge/mapping"
)

// Family is the provider family that issued an opaque reasoning value; see
// mapping.Family.
type Family = mapping.Family

// StopReason is the canonical reason a model stopped; see mapping.StopReason.
type StopReason = mapping.StopReason

// Usage is token usage in canonical meaning; see mapping.Usage.
type Usage = mapping.Usage

// Role is the author of a message.
type Role uint8

// Message roles.
const (
	// RoleUser is the end user (and, by position, tool results).
	RoleUser Role = iota
	// RoleAssistant is the model.
	RoleAssistant
	// RoleSystem is a system instruction that appears inside the
	// conversation rather than at its start.
	RoleSystem
	// RoleDeveloper is OpenAI's developer instruction; it is a system
	// instruction that keeps its name where the target protocol has one.
	RoleDeveloper
)

// String returns the role's lower-case name, as OpenAI spells it.
func (r Role) String() string {
	switch r {
	case RoleAssistant:
		return "assistant"
	case RoleSystem:
		return "system"
	case RoleDeveloper:
		return "developer"
	}
	return "user"
}

// PartType is the kind of a content part. Later kinds (tool calls and
// results, reasoning, refusal, images) are parts of the same list, so a
// message keeps the order in which its content was produced.
type PartType uint8

// Content part kinds.
const (
	// PartText is plain text.
	PartText PartType = iota
	// PartRefusal is a model's refusal text (Chat message.refusal,
	// Responses refusal content parts).
	PartRefusal
	// PartToolCall is a call of a client-side tool by the model, in an
	// assistant message: ToolCallID, ToolName and Arguments.
	PartToolCall
	// PartToolResult is the result of a tool call, in a user message:
	// ToolCallID, ToolName when known, Content and IsError.
	PartToolResult
	// PartImage is an image: MediaType and base64 Data, or URL.
	PartImage
	// PartDocument is a document such as a PDF: MediaType and base64 Data,
	// or URL; Text holds a title when the protocol has one.
	PartDocument
	// PartAudio is audio input: MediaType and base64 Data.
	PartAudio
	// PartReasoning is the model's reasoning: Anthropic thinking and
	// redacted_thinking blocks, Responses reasoning items, Chat
	// reasoning_content, Gemini thought parts and thoughtSignatures. Text
	// is the readable reasoning (thinking text, or a Responses summary);
	// Signature, Origin, Redacted and ItemID carry the opaque state the
	// issuing upstream needs back on the next turn.
	PartReasoning
	// PartServerToolCall is a call of a provider-hosted tool that the
	// upstream ran itself, in an assistant message or response: Anthropic
	// server_tool_use, a Responses web_search_call, a Gemini
	// groundingMetadata.webSearchQueries entry. ToolCallID, ToolName (as
	// the upstream named the tool, "web_search" for all three), ToolKind
	// (ToolWebSearch) and Arguments (the search as a JSON object,
	// {"query": "..."}). No client runs it: it reports what happened.
	PartServerToolCall
	// PartServerToolResult is what a hosted tool call found: Anthropic
	// web_search_tool_result, the sources of a Responses web_search_call,
	// Gemini groundingChunks. ToolCallID names the PartServerToolCall it
	// answers (empty when the upstream does not say), Sources the pages,
	// and IsError with Text the provider's error code when the search
	// failed.
	PartServerToolResult
)

var partTypeNames = [...]string{"text", "refusal", "tool call", "tool result", "image", "document", "audio", "reasoning",
	"server tool call", "server tool result"}

// String returns a short name of the part type, for error messages.
func (t PartType) String() string {
	if int(t) < len(partTypeNames) {
		return partTypeNames[t]
	}
	return "unknown"
}

// Part is one piece of message content. Its one-byte fields come first,
// where they share a word.
type Part struct {
	// Type is the kind of content.
	Type PartType
	// IsError marks a tool result that reports a failure (Anthropic
	// is_error).
	IsError bool
	// Origin is the provider family that issued Signature, or
	// mapping.FamilyNone for unsigned reasoning.
	Origin mapping.Family
	// Redacted marks Anthropic redacted_thinking: Signature holds its data
	// and Text is empty.
	Redacted bool
	// Cache is a prompt-cache breakpoint after this part (Anthropic
	// cache_control on its block, a Converse cachePoint after it), or
	// CacheNone.
	Cache CacheTTL
	// ToolKind is the kind of tool a PartToolCall or PartServerToolCall
	// calls. ToolFunction (the zero value) for function calls;
	// ToolCustom for a call of a Responses custom (freeform) tool, whose
	// Arguments are then {"input": "<the raw input>"} (see ToolCustom);
	// ToolWebSearch for a hosted search. Decoders that know it set it
	// (Responses custom_tool_call items); a Responses client encoder that
	// has the client's request restores it from the declared tools.
	ToolKind ToolKind
	// Text is the text of a PartText or PartRefusal.
	Text string

	// ToolCallID identifies a tool call (PartToolCall) or the call a
	// result answers (PartToolResult). Ids pass between protocols
	// unchanged; where an upstream gives none (the Gemini API), the
	// decoder synthesises a stable one.
	ToolCallID string
	// ToolName is the name of the called tool.
	ToolName string
	// Arguments is a tool call's arguments as the text of one JSON object
	// ("{}" for none). Protocols that carry arguments as a JSON string
	// (OpenAI) keep the string's literal in it until something reads the
	// arguments (SetEscapedArguments), so it is read only through
	// ArgumentsValue; those that carry an object (Anthropic input, Gemini
	// args) are copied as is.
	Arguments string
	// Content is a tool result's content: text and image parts.
	Content []Part

	// MediaType is the MIME type of an image, document or audio part.
	MediaType string
	// Data is the base64 content of an image, document or audio part.
	Data string
	// URL is where an image or document is; llmbridge never fetches it, so
	// it reaches only upstreams that accept URLs.
	URL string

	// Signature is a reasoning part's opaque value, byte for byte as its
	// issuer sent it: an Anthropic thinking signature or redacted_thinking
	// data, a Responses encrypted_content, a Gemini thoughtSignature. It is
	// never interpreted, and reaches only an upstream of family Origin;
	// toward a client it travels in a continuation envelope
	// (mapping.Continuation).
	Signature string
	// ItemID is the provider's id of a reasoning item (Responses rs_...),
	// kept so that it can be sent back.
	ItemID string

	// Namespace is the Codex namespace group of the function a
	// PartToolCall or PartToolResult is about (Responses namespace on
	// function_call items), or "". Toward protocols without groups, the
	// call's name is flattened with FlatToolName.
	Namespace string
	// Citations are the sources a PartText cites (Anthropic text block
	// citations, Responses url_citation annotations, Gemini
	// groundingSupports), in the order the upstream gave them.
	Citations []Citation
	// Sources are the pages a PartServerToolResult found.
	Sources []Source

	// literal is the body of the JSON string literal (escapes and all)
	// that a request decoder read Text from, when it held escapes, and
	// literalOf the Text it decoded to. While Text is still that text, a
	// request encoder copies the literal instead of escaping Text again:
	// conversation text is full of escapes, and escaping it costs as much
	// as unescaping it did (SetTextLiteral, TextLiteral). A part whose
	// text was never unescaped (SetEscapedText) holds the literal in Text
	// itself, the very same string, until TextValue unescapes it.
	//
	// A tool call's Arguments use the same two fields, and a part keeps
	// one literal: a tool call has no text, and setting the literal of
	// one field first unescapes the other if it is still escaped
	// (SetEscapedArguments, ArgumentsValue, JSONArguments). The pair says
	// only that literal is what literalOf escapes to, which holds
	// whichever field it came from.
	literal, literalOf string
}

// Citation is a web source that a span of a text part cites.
type Citation struct {
	// URL is the cited page.
	URL string
	// Title is the page's title, or "".
	Title string
	// CitedText is the quoted passage of the page, when the upstream gave
	// it (Anthropic cited_text), else "".
	CitedText string
	// Start and End are the cited span of the part's Text, as byte
	// offsets; End is -1 when the citation covers the whole part (Anthropic
	// cites a whole text block, and a streamed part's length is not known
	// when its citation arrives). Encoders convert them to their own unit
	// (Responses: characters, Gemini: bytes).
	Start, End int
}

// Source is a web page that a hosted search found.
type Source struct {
	// URL is the page's address.
	URL string
	// Title is the page's title, or "".
	Title string
	// PageAge is how old the page is, as the upstream said it (Anthropic
	// page_age), or "".
	PageAge string
}

// Message is one turn of a conversation.
type Message struct {
	// Role is the author of the message.
	Role Role
	// Parts is the content in order.
	Parts []Part
}

// OptInt is an optional integer parameter.
type OptInt struct {
	// Value is the parameter's value when Set.
	Value int64
	// Set reports whether the client gave the parameter.
	Set bool
}

// OptBool is an optional boolean parameter.
type OptBool struct {
	// Value is the parameter's value when Set.
	Value bool
	// Set reports whether the client gave the parameter.
	Set bool
}

// ToolKind is the kind of a tool definition.
type ToolKind uint8

// Tool kinds.
const (
	// ToolFunction is a client-side function with a JSON Schema for its
	// arguments.
	ToolFunction ToolKind = iota
	// ToolWebSearch is the provider-hosted web search (Responses
	// web_search and web_search_preview, Anthropic web_search_20250305,
	// Gemini googleSearch); WebSearch holds its options. It is sent only
	// to upstreams with the same capability; toward others it is rejected
	// with an error naming the tool (Tool.Source).
	ToolWebSearch
	// ToolCustom is a Responses custom (freeform) tool: the model writes
	// its input as raw text, not JSON. Toward protocols without custom
	// tools it becomes a function of the same name whose parameters are
	// CustomToolParameters, one string "input" holding the raw text; its
	// calls come back as custom_tool_call items to a Responses client that
	// declared the tool custom. A grammar format (Tool.Grammar) cannot be
	// enforced by such a function and is rejected toward them.
	ToolCustom
)

// CustomToolParameters is the JSON Schema of the function a custom tool
// becomes toward protocols without custom tools.
const CustomToolParameters = `{"type":"object","properties":{"input":{"type":"string"}},"required":["input"]}`

// Tool is a tool the model may call.
type Tool struct {
	// Kind is the kind of tool.
	Kind ToolKind
	// Name is the function's name.
	Name string
	// Description says what the function does.
	Description string
	// Parameters is the JSON Schema of the arguments, as the text of one
	// JSON object, or "" when the tool takes none.
	Parameters string
	// Strict asks the provider to enforce Parameters exactly (OpenAI
	// strict); only OpenAI upstreams can, others reject strict: true.
	Strict OptBool

	// Namespace is the Codex namespace group (Responses
	// {type:"namespace", name, tools}) the function belongs to, or "".
	// Each function of a group is one canonical tool; toward protocols
	// without groups its name is FlatToolName(Namespace, Name), and the
	// group's description (NamespaceDescription) is put before the
	// function's own.
	Namespace string
	// NamespaceDescription is the description of the Namespace group.
	NamespaceDescription string
	// Grammar is a ToolCustom's format when it constrains the input with
	// a grammar: the format object's JSON text ({"type":"grammar",
	// "syntax":..., "definition":...}); "" for free text.
	Grammar string
	// WebSearch holds a ToolWebSearch's options.
	WebSearch WebSearchOptions
	// Source is where a hosted tool was declared in the client's request
	// (such as "tools[3]"), so that a rejection names it; "" for others.
	Source string
	// Cache is a prompt-cache breakpoint after this tool's definition,
	// or CacheNone.
	Cache CacheTTL
}

// WebSearchOptions are the options of a hosted web search. Zero values
// are "not given": the provider's default.
type WebSearchOptions struct {
	// Preview marks Responses web_search_preview (rather than
	// web_search), kept for a Responses upstream.
	Preview bool
	// MaxUses bounds the searches in one response (Anthropic max_uses,
	// Responses max_tool_calls when the search is the only hosted tool).
	MaxUses OptInt
	// AllowedDomains restricts results to these domains (Anthropic
	// allowed_domains, Responses filters.allowed_domains).
	AllowedDomains []string
	// BlockedDomains excludes these domains (Anthropic blocked_domains).
	BlockedDomains []string
	// Location is the user's approximate location (Anthropic and
	// Responses user_location of type approximate).
	Location UserLocation
	// ContextSize is Responses search_context_size (low, medium, high),
	// or "".
	ContextSize string
}

// UserLocation is an approximate user location for localised search.
type UserLocation struct {
	// City, Region, Country (ISO 3166-1 alpha-2) and Timezone (IANA) are
	// the location's fields; "" when not given.
	City, Region, Country, Timezone string
}

// IsZero reports whether no field of l is set.
func (l *UserLocation) IsZero() bool { return *l == UserLocation{} }

// ToolChoiceMode is how the model must use tools.
type ToolChoiceMode uint8

// Tool choice modes.
const (
	// ToolChoiceUnset leaves the provider's default (auto with tools).
	ToolChoiceUnset ToolChoiceMode = iota
	// ToolChoiceAuto lets the model decide.
	ToolChoiceAuto
	// ToolChoiceNone forbids tool calls.
	ToolChoiceNone
	// ToolChoiceRequired forces at least one tool call (OpenAI required,
	// Anthropic any, Gemini ANY).
	ToolChoiceRequired
	// ToolChoiceNamed forces a call of the tool called Name.
	ToolChoiceNamed
)

// ToolChoice says whether and which tools the model must call.
type ToolChoice struct {
	// Mode is how tools must be used.
	Mode ToolChoiceMode
	// Name is the tool a ToolChoiceNamed choice forces.
	Name string
	// Namespace is the Codex namespace group of the forced tool when it
	// is in one (Responses only). Toward protocols without tool groups
	// the choice names the tool's flat name (FlatToolName), as its
	// declaration does.
	Namespace string
}

// OptFloat is an optional floating-point parameter.
type OptFloat struct {
	// Value is the parameter's value when Set.
	Value float64
	// Set reports whether the client gave the parameter.
	Set bool
}

// Request is a generation request in canonical form.
type Request struct {
	// Model is the model the client asked for, from the body or, for
	// protocols that carry it there, the URL path (set by the caller).
	Model string
	// Stream reports whether the client asked for a streamed response.
	Stream bool
	// StreamUsage reports whether the client asked for usage in the stream
	// (Chat stream_options.include_usage; implied by the other protocols).
	StreamUsage bool

	// System holds the instructions that precede the conversation: Chat and
	// Responses leading system/developer messages, Responses instructions,
	// Anthropic system, Gemini systemInstruction.
	System []Part
	// SystemRole is the role the client used for System (RoleSystem or
	// RoleDeveloper); encoders with both roles keep it.
	SystemRole Role
	// Messages is the conversation, oldest first. System instructions that
	// appear after the first turn stay here with RoleSystem or RoleDeveloper;
	// protocols that only take a leading system prompt hoist them into it.
	Messages []Message

	// MaxTokens is the output token limit.
	MaxTokens OptInt
	// Temperature is the sampling temperature.
	Temperature OptFloat
	// TopP is the nucleus sampling mass.
	TopP OptFloat
	// TopK is the top-k sampling cutoff.
	TopK OptInt
	// PresencePenalty penalises tokens that have appeared at all.
	PresencePenalty OptFloat
	// FrequencyPenalty penalises tokens by how often they appeared.
	FrequencyPenalty OptFloat
	// Seed asks for best-effort deterministic sampling.
	Seed OptInt
	// StopSequences end generation when produced.
	StopSequences []string
	// User identifies the end user for abuse monitoring (Chat and Responses
	// user, Anthropic metadata.user_id).
	User string

	// Tools are the tools the model may call.
	Tools []Tool
	// ToolChoice says whether and which tools the model must call.
	ToolChoice ToolChoice
	// ParallelToolCalls allows or forbids several tool calls in one turn
	// (Chat/Responses parallel_tool_calls, the inverse of Anthropic
	// disable_parallel_tool_use); unset leaves the provider's default.
	ParallelToolCalls OptBool

	// Reasoning is how much the model should reason; the zero value asks
	// for nothing and injects nothing toward the upstream.
	Reasoning Reasoning
	// Format is the required output format (structured output); the zero
	// value is plain text.
	Format OutputFormat
	// Verbosity is OpenAI's output verbosity (low, medium, high: Responses
	// text.verbosity, Chat verbosity), or "". Only OpenAI protocols have
	// it; toward others a set value is rejected.
	Verbosity string

	// Cache is what the request asks of the provider's prompt cache
	// beyond the breakpoints on its parts and tools.
	Cache Cache

	// Include lists Responses include values the client asked for (such
	// as "reasoning.encrypted_content"); encoders toward other protocols
	// read what they need from it.
	Include []string

	// Dropped lists the paths of hint fields that were read but have no
	// effect on what the target produces, and were therefore not forwarded
	// (for example "store" or "system[0].cache_control"). Decoders and
	// encoders append to it; it is reported to the client.
	Dropped []string

	// Items keeps output items of Responses answers for later
	// item_reference inputs (see ItemStore); nil keeps none, and then
	// only items small enough to travel in their id can be referred to.
	// The caller sets it before decoding; Reset keeps it.
	Items ItemStore

	// Conversations says that the caller keeps the conversations of the
	// stateful APIs itself: a decoder then records the stored conversation
	// a request continues (Continues) instead of rejecting the request,
	// and the caller expands the request with that conversation or
	// refuses it. The caller sets it before decoding; Reset keeps it.
	Conversations bool
	// Continues is the id of the stored response the request continues
	// (Responses previous_response_id), recorded only under Conversations.
	Continues string
	// Store is the client's store setting (Responses store): whether its
	// answer is to be kept for a later request to continue from, recorded
	// only under Conversations. Unset means the client said nothing, which
	// the API takes as true.
	Store OptBool

	// scratch is what decoding allocated, kept by Reset for the next
	// decode.
	scratch Scratch
}

// Scratch is memory that decoding a request allocates and that Reset
// keeps for the next decode into the same Request: the buffer its
// unescaped strings are written to and the backing array of its parts. A
// server that reuses its Requests (Reset, then DecodeRequest) decodes an
// agent's conversation without allocating for its length. It belongs to
// the decoders; callers only reuse the Request.
type Scratch struct {
	// Text is the buffer the request's unescaped strings were written to.
	Text []byte
	// Parts is the backing array of the request's parts.
	Parts []Part
	// Content is the backing array of the parts' own content (a tool
	// result's), carved out as they are decoded.
	Content []Part
}

// Scratch returns the decode memory of r, for its decoder.
func (r *Request) Scratch() *Scratch { return &r.scratch }

// Reset clears r for reuse, keeping allocated capacity (its slices and
// its Scratch). The strings and parts of the request decoded before
// become invalid when r is decoded again: whoever keeps any of them past
// the request's life must copy them.
func (r *Request) Reset() {
	msgs := r.Messages[:0]
	sys := r.System[:0]
	if sharesArray(sys, r.scratch.Parts) {
		// Decoders that keep every part in one array slice the system
		// prompt from it: appending to it again would write over the
		// parts the next decode keeps there.
		sys = nil
	}
	stop := r.StopSequences[:0]
	dropped := r.Dropped[:0]
	tools := r.Tools[:0]
	include := r.Include[:0]
	r.scratch.Content = r.scratch.Content[:0]
	*r = Request{Messages: msgs, System: sys, StopSequences: stop, Dropped: dropped, Tools: tools, Include: include, Items: r.Items, Conversations: r.Conversations, scratch: r.scratch}
}

// KeepForStream keeps of r only what a stream encoder reads while the
// answer streams, and nothing that points into the body r was decoded
// from or into its Scratch: the model, the stream settings, the numeric
// generation settings, the item store, and the kind and names of the
// tools whose calls an encoder restores (namespaced functions and custom
// tools), those strings copied. The conversation, the tool definitions,
// the other strings and the decode memory are let go, so that a server
// can reuse the body's buffer as soon as the stream opens rather than
// when it ends: a stream can last minutes, and an agent's body can be a
// megabyte. It returns the decode memory it let go of, which nothing of r
// points into any more, for another Request to decode into (a Request
// whose Scratch is set to it). Only the tools' array is kept (cleared
// past the tools kept); Reset works as before.
func (r *Request) KeepForStream() Scratch {
	spare := r.scratch
	n := 0
	for i := range r.Tools {
		if t := &r.Tools[i]; t.RestoredInAnswers() {
			r.Tools[n] = Tool{Kind: t.Kind, Name: strings.Clone(t.Name), Namespace: strings.Clone(t.Namespace)}
			n++
		}
	}
	clear(r.Tools[n:])
	*r = Request{
		Model: strings.Clone(r.Model), Stream: r.Stream, StreamUsage: r.StreamUsage,
		MaxTokens: r.MaxTokens, Temperature: r.Temperature, TopP: r.TopP, TopK: r.TopK,
		PresencePenalty: r.PresencePenalty, FrequencyPenalty: r.FrequencyPenalty, Seed: r.Seed,
		ParallelToolCalls: r.ParallelToolCalls, SystemRole: r.SystemRole,
		Tools: r.Tools[:n], Items: r.Items,
	}
	return spare
}

// sharesArray reports whether a and b are views of the same array.
func sharesArray(a, b []Part) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	size := unsafe.Sizeof(Part{})
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(cap(b))*size && pb < pa+uintptr(cap(a))*size
}

// Reasoning is the canonical reasoning configuration of a request.
//
// Effort, Budget and Adaptive are alternatives: a decoder sets the one its
// protocol speaks (Responses/Chat an effort, Anthropic enabled thinking a
// budget, adaptive thinking Adaptive, Gemini a budget or level), and each
// encoder converts what is set into its own vocabulary with
// mapping.EffortBudgets (EncodeOptions.EffortBudgets).
type Reasoning struct {
	// Effort is the requested effort level; EffortNone disables reasoning.
	Effort mapping.Effort
	// Budget is an explicit thinking token budget (Anthropic
	// budget_tokens, Gemini thinkingBudget; 0 disables, -1 is Gemini's
	// dynamic budget).
	Budget OptInt
	// Adaptive asks the model to decide how much to think (Anthropic
	// thinking type adaptive, Gemini thinkingBudget -1).
	Adaptive bool
	// Summary is the Responses reasoning.summary setting (auto, concise
	// or detailed), or "".
	Summary string
	// Display is Anthropic's thinking display setting (summarized or
	// omitted), or "".
	Display string
	// IncludeThoughts is Gemini's includeThoughts: whether reasoning text
	// is returned.
	IncludeThoughts OptBool
}

// FormatKind is the kind of output a request requires.
type FormatKind uint8

// Output format kinds.
const (
	// FormatText is plain text, every protocol's default.
	FormatText FormatKind = iota
	// FormatJSONObject is any JSON object (Chat json_object, Responses
	// text.format json_object, Gemini responseMimeType application/json
	// without a schema).
	FormatJSONObject
	// FormatJSONSchema is JSON that follows Schema (Chat/Responses
	// json_schema, Anthropic output_config.format json_schema, Gemini
	// responseJsonSchema).
	FormatJSONSchema
)

// OutputFormat is a request's required output format.
type OutputFormat struct {
	// Kind is the kind of output.
	Kind FormatKind
	// Name is the schema's name (OpenAI requires one; others have none and
	// encoders toward OpenAI write "response" when it is empty).
	Name string
	// Description describes the schema, when given.
	Description string
	// Schema is the JSON Schema, as the text of one JSON object.
	Schema string
	// Strict asks for exact schema adherence (OpenAI strict).
	Strict OptBool
}

// IsZero reports whether r asks for nothing.
func (r *Reasoning) IsZero() bool { return *r == Reasoning{} }

// StopDetails is the detail an upstream gave with a refusal or a filter
// stop: Anthropic stop_details, Gemini promptFeedback and finishMessage.
type StopDetails struct {
	// Category is the provider's classification (Anthropic
	// stop_details.category, Gemini blockReason), not mapped between
	// protocols.
	Category string
	// Explanation is the provider's human-readable explanation (Anthropic
	// stop_details.explanation); it becomes the refusal text where the
	// client protocol needs one and the output has no visible text.
	Explanation string
}

// Response is a complete (non-streamed) model response in canonical form.
type Response struct {
	// ID is the provider's response id; encoders synthesise one in their
	// own style when it is empty.
	ID string
	// Model is the model that produced the response.
	Model string
	// Created is the creation time in Unix seconds, or 0 when unknown.
	Created int64
	// Content is the assistant output in order.
	Content []Part
	// StopReason is why generation ended.
	StopReason StopReason
	// StopSequence is the stop sequence that ended generation, when known.
	StopSequence string
	// StopDetails explains a refusal or a filter stop, when the upstream
	// did.
	StopDetails StopDetails
	// Usage is the token usage, when the upstream reported it.
	Usage Usage

	// Dropped lists what an encoder left out of the client's response
	// because the client protocol cannot carry it (such as
	// "content[2] (server tool call)" or "content[0].citations"): output
	// that is not the answer itself. Encoders append to it; the caller
	// may log it.
	Dropped []string
	// Latency is how long the upstream took to answer, when the caller
	// measured it (Bedrock's Converse answers carry it in metrics).
	Latency Latency
}

// EncodeOptions parameterise request encoding.
type EncodeOptions struct {
	// Model is the upstream model to write; when empty the request's model
	// is used.
	Model string
	// DefaultMaxTokens is the max_tokens written toward protocols that
	// require one (Anthropic) when the client gave none; 0 means 4096.
	DefaultMaxTokens int64
	// EffortBudgets are the thinking budgets that stand for each reasoning
	// effort; zero fields take mapping.DefaultEffortBudgets.
	EffortBudgets mapping.EffortBudgets
	// Target is what the upstream model and server accept beyond the
	// protocol itself; the zero value writes each protocol as its
	// first-party API takes it.
	Target Target
	// Cache is how prompt caching is asked for where the client's
	// protocol does not ask for it; the zero value asks for nothing.
	Cache CachePolicy
}

// DefaultMaxTokens is the max_tokens written toward Anthropic when neither
// the client nor the configuration gave one.
const DefaultMaxTokens = 4096

// Latency is how long an upstream took, in Bedrock's terms. The codecs do
// not measure time: the caller (llmbridge's HTTP layer) sets it on a
// Response or on the EventEnd of a stream; zero is unknown.
type Latency struct {
	// InvocationMs is the milliseconds from sending the upstream request
	// to the end of its answer.
	InvocationMs int64
	// FirstByteMs is the milliseconds from sending the upstream request
	// to the first byte of its answer.
	FirstByteMs int64
}
