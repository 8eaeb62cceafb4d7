package codec

import "github.com/llmbridge/llmbridge/mapping"

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
)

// Part is one piece of message content.
type Part struct {
	// Type is the kind of content.
	Type PartType
	// Text is the text of a PartText or PartRefusal.
	Text string
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

	// Dropped lists the paths of hint fields that were read but have no
	// effect on what the target produces, and were therefore not forwarded
	// (for example "store" or "system[0].cache_control"). Decoders and
	// encoders append to it; it is reported to the client.
	Dropped []string

	// text holds the unescaped strings of the decoded body.
	text textArena
}

// Reset clears r for reuse, keeping allocated capacity.
func (r *Request) Reset() {
	msgs := r.Messages[:0]
	sys := r.System[:0]
	stop := r.StopSequences[:0]
	dropped := r.Dropped[:0]
	*r = Request{Messages: msgs, System: sys, StopSequences: stop, Dropped: dropped}
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
	// Usage is the token usage, when the upstream reported it.
	Usage Usage
}

// EncodeOptions parameterise request encoding.
type EncodeOptions struct {
	// Model is the upstream model to write; when empty the request's model
	// is used.
	Model string
	// DefaultMaxTokens is the max_tokens written toward protocols that
	// require one (Anthropic) when the client gave none; 0 means 4096.
	DefaultMaxTokens int64
}

// DefaultMaxTokens is the max_tokens written toward Anthropic when neither
// the client nor the configuration gave one.
const DefaultMaxTokens = 4096

// VertexAnthropicVersion is the anthropic_version a vertex-anthropic body
// carries when the client gave none.
const VertexAnthropicVersion = "vertex-2023-10-16"

func (o *EncodeOptions) model(r *Request) string {
	if o.Model != "" {
		return o.Model
	}
	return r.Model
}

func (o *EncodeOptions) maxTokens(r *Request) int64 {
	if r.MaxTokens.Set {
		return r.MaxTokens.Value
	}
	if o.DefaultMaxTokens > 0 {
		return o.DefaultMaxTokens
	}
	return DefaultMaxTokens
}
