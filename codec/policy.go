package codec

import (
	"slices"
	"strconv"

	"github.com/llmbridge/llmbridge/mapping"
)

// ErrorClass says why a codec rejected a request. The capability policy
// (the on_unsupported setting of the Caddy module) acts on it:
//
//   - ClassInvalid: the request is wrong (a wrong type, a missing field, a
//     value outside the protocol's range, an inconsistent combination). It
//     is rejected under every policy.
//   - ClassUnknownField: a field the codec does not know. It is rejected
//     under every policy; only an explicit drop of its path (the drop
//     setting) removes it before decoding.
//   - ClassCapability: a field the codec knows but cannot carry (from
//     unsupportedField, rejectUnlessNull and cannotEncode): a capability
//     outside what llmbridge translates, or one the target protocol lacks.
//     Rejected under the strict and safe policies, dropped under lenient
//     where Request.Drop (encode side) or removing the field from the
//     client's body (decode side) can drop it.
//
// Hints are not errors: decoders and encoders list them in Request.Dropped
// (ClassHint). The safe and lenient policies forward the request without
// them, strict rejects the request.
type ErrorClass uint8

// Error classes.
const (
	// ClassInvalid is an invalid request, the zero value.
	ClassInvalid ErrorClass = iota
	// ClassUnknownField is a field the codec does not know.
	ClassUnknownField
	// ClassCapability is a known field the codec or the target protocol
	// cannot carry.
	ClassCapability
	// ClassHint is a field with no effect on what the model generates,
	// dropped and listed in Request.Dropped. Codecs never return an Error
	// of this class; the strict policy's rejection of a request that would
	// lose a hint carries it.
	ClassHint
)

var errorClassNames = [...]string{"invalid", "unknown_field", "capability", "hint"}

// String returns the class's name: invalid, unknown_field, capability or
// hint.
func (c ErrorClass) String() string {
	if int(c) < len(errorClassNames) {
		return errorClassNames[c]
	}
	return "class_" + strconv.Itoa(int(c))
}

// Capability identifies what a capability error (ClassCapability) names,
// so that the lenient policy can remove it and try again without reading
// the error's Param:
//
//   - a decoder's error names Element, the path of the element of the
//     client's body to remove: the field itself, or the tool, content
//     part or item whose kind a field of it selects ("tools[2]" for
//     tools[2].type);
//   - an encoder's error names what Request.Drop removes from the
//     canonical request: Kind, with Tool, Message, Part and Content
//     saying where.
//
// The zero Capability names nothing that can be removed: a value the
// target rejects (a thinking budget below its minimum), say.
type Capability struct {
	// Element is the client body path a decoder's error names.
	Element string
	// Kind is what an encoder's error names in the canonical request.
	Kind CapabilityKind
	// Tool indexes Request.Tools (CapTool, CapToolStrict,
	// CapToolGrammar).
	Tool int
	// Message indexes Request.Messages, or is -1 for Request.System; Part
	// indexes that message's parts, and Content the content of the tool
	// result there (CapPart, CapResultContent).
	Message, Part, Content int
}

// CapabilityKind is what an encoder's capability error names in the
// canonical request (Capability.Kind).
type CapabilityKind uint8

// The kinds of capability Request.Drop removes.
const (
	// CapNone names nothing that can be removed.
	CapNone CapabilityKind = iota
	// CapTopK, CapPresencePenalty, CapFrequencyPenalty, CapStopSequences
	// and CapVerbosity name a sampling or output setting, which is unset.
	CapTopK
	CapPresencePenalty
	CapFrequencyPenalty
	CapStopSequences
	CapVerbosity
	// CapFormat names the structured output format (Request.Format),
	// which is unset, so that the model answers in plain text.
	CapFormat
	// CapEffort names a reasoning effort that accompanies a budget or
	// adaptive thinking; the effort is unset, the budget stays.
	CapEffort
	// CapToolChoice names the tool choice, which is unset (the
	// provider's default, auto).
	CapToolChoice
	// CapTool names tool Tool, which is removed, with a tool choice
	// that names it.
	CapTool
	// CapToolStrict names tool Tool's strict flag, which is unset.
	CapToolStrict
	// CapToolGrammar names custom tool Tool's grammar, which is unset
	// (the tool takes free text).
	CapToolGrammar
	// CapPart names content part Part of message Message (of the system
	// prompt when Message is -1), which is removed; a message left empty
	// is then skipped by the encoders that skip empty messages.
	CapPart
	// CapResultContent names part Content of the content of the tool
	// result at Message and Part, which is removed.
	CapResultContent
)

// PartCapability is the Capability of content part part of message
// message (-1 for the system prompt).
func PartCapability(message, part int) Capability {
	return Capability{Kind: CapPart, Message: message, Part: part}
}

// Drop removes what c, an encoder's capability error's Capability, names
// from the request, so that encoding can be tried again, and reports
// whether it did. It returns false when c names nothing or something the
// request no longer has.
func (r *Request) Drop(c Capability) bool {
	switch c.Kind {
	case CapTopK:
		return clear1(&r.TopK.Set, func() { r.TopK = OptInt{} })
	case CapPresencePenalty:
		return clear1(&r.PresencePenalty.Set, func() { r.PresencePenalty = OptFloat{} })
	case CapFrequencyPenalty:
		return clear1(&r.FrequencyPenalty.Set, func() { r.FrequencyPenalty = OptFloat{} })
	case CapStopSequences:
		if len(r.StopSequences) == 0 {
			return false
		}
		r.StopSequences = r.StopSequences[:0]
		return true
	case CapVerbosity:
		if r.Verbosity == "" {
			return false
		}
		r.Verbosity = ""
		return true
	case CapFormat:
		if r.Format == (OutputFormat{}) {
			return false
		}
		r.Format = OutputFormat{}
		return true
	case CapEffort:
		if r.Reasoning.Effort == mapping.EffortUnset || !r.Reasoning.Adaptive && !r.Reasoning.Budget.Set {
			return false
		}
		r.Reasoning.Effort = mapping.EffortUnset
		return true
	case CapToolChoice:
		if r.ToolChoice == (ToolChoice{}) {
			return false
		}
		r.ToolChoice = ToolChoice{}
		return true
	case CapTool, CapToolStrict, CapToolGrammar:
		i := c.Tool
		if i < 0 || i >= len(r.Tools) {
			return false
		}
		t := &r.Tools[i]
		switch c.Kind {
		case CapToolStrict:
			return clear1(&t.Strict.Set, func() { t.Strict = OptBool{} })
		case CapToolGrammar:
			if t.Grammar == "" {
				return false
			}
			t.Grammar = ""
			return true
		}
		if r.ToolChoice.Mode == ToolChoiceNamed && r.ToolChoice.Name == t.Name && r.ToolChoice.Namespace == t.Namespace {
			r.ToolChoice = ToolChoice{}
		}
		r.Tools = slices.Delete(r.Tools, i, i+1)
		return true
	case CapPart, CapResultContent:
		parts := &r.System
		if c.Message >= 0 {
			if c.Message >= len(r.Messages) {
				return false
			}
			parts = &r.Messages[c.Message].Parts
		}
		if c.Part < 0 || c.Part >= len(*parts) {
			return false
		}
		if c.Kind == CapPart {
			*parts = slices.Delete(*parts, c.Part, c.Part+1)
			return true
		}
		p := &(*parts)[c.Part]
		if p.Type != PartToolResult || c.Content < 0 || c.Content >= len(p.Content) {
			return false
		}
		// The content slice may be shared with the decoder's backing
		// array; a copy keeps the deletion to this part.
		p.Content = slices.Delete(slices.Clone(p.Content), c.Content, c.Content+1)
		return true
	}
	return false
}

// clear1 calls unset when *set, and reports whether it did.
func clear1(set *bool, unset func()) bool {
	if !*set {
		return false
	}
	unset()
	return true
}

// FieldClass is the class of a request field in a field table
// (Descriptor.Fields): what happens to it on its way to the upstreams.
type FieldClass uint8

// Field classes.
const (
	// FieldMapped is carried to every upstream protocol.
	FieldMapped FieldClass = iota
	// FieldHint has no effect on what the model generates; toward at least
	// one upstream protocol it is dropped and listed in Request.Dropped,
	// and it is never rejected.
	FieldHint
	// FieldCapability changes what the model can produce and cannot be
	// carried toward at least one upstream protocol (or at all): it is
	// rejected there (an Error of ClassCapability).
	FieldCapability
)

var fieldClassNames = [...]string{"mapped", "hint", "capability"}

// String returns mapped, hint or capability.
func (c FieldClass) String() string {
	if int(c) < len(fieldClassNames) {
		return fieldClassNames[c]
	}
	return "class_" + strconv.Itoa(int(c))
}

// Field is one request field a client codec knows, with its class over
// every upstream protocol: capability when it is rejected toward at least
// one, else hint when it is dropped toward at least one, else mapped.
type Field struct {
	// Path is the field's path in the client's body, with [] for any
	// array index. A note in parentheses names the value or content kind
	// the class is for, where others have another class
	// ("response_format (json_object)").
	Path string
	// Class is the field's class.
	Class FieldClass
}
