package codec

import (
	"slices"
	"strconv"
	"strings"

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

// Drop removes what an encoder's capability error (cannotEncode) names
// from the request, so that encoding can be tried again, and reports
// whether it did. path is the error's Param, in the canonical names the
// encoders use:
//
//   - top_k, presence_penalty, frequency_penalty, stop_sequences, verbosity:
//     the sampling or output setting is unset;
//   - output_config.format, text.format, text.format.schema,
//     response_format, generationConfig.responseJsonSchema: the structured
//     output format (Request.Format) is unset, so the model answers in
//     plain text;
//   - output_config.effort: a reasoning effort that accompanies a budget or
//     adaptive thinking is unset, the budget stays;
//   - tool_choice: the tool choice is unset (the provider's default, auto);
//   - tools[i]: tool i is removed, and a tool choice that names it is unset;
//   - tools[i].strict: tool i's strict flag is unset;
//   - tools[i].format: custom tool i's grammar is unset (it takes free
//     text);
//   - system[j], messages[i].content[j], messages[i].parts[j]: that content
//     part is removed (a message left empty is then skipped by the
//     encoders that skip empty messages);
//   - the same followed by .content[k]: part k of that tool result's
//     content is removed.
//
// Everything else returns false and the error stands: values the target
// rejects (thinking.budget_tokens below a minimum, max_tokens too small for
// thinking), a tool result without a call id, a conversation without any
// text, and paths Drop does not know.
func (r *Request) Drop(path string) bool {
	switch path {
	case "top_k":
		return clear1(&r.TopK.Set, func() { r.TopK = OptInt{} })
	case "presence_penalty":
		return clear1(&r.PresencePenalty.Set, func() { r.PresencePenalty = OptFloat{} })
	case "frequency_penalty":
		return clear1(&r.FrequencyPenalty.Set, func() { r.FrequencyPenalty = OptFloat{} })
	case "stop_sequences":
		if len(r.StopSequences) == 0 {
			return false
		}
		r.StopSequences = r.StopSequences[:0]
		return true
	case "verbosity":
		if r.Verbosity == "" {
			return false
		}
		r.Verbosity = ""
		return true
	case "output_config.format", "text.format", "text.format.schema", "response_format",
		"generationConfig.responseJsonSchema":
		if r.Format == (OutputFormat{}) {
			return false
		}
		r.Format = OutputFormat{}
		return true
	case "output_config.effort":
		if r.Reasoning.Effort == mapping.EffortUnset || !r.Reasoning.Adaptive && !r.Reasoning.Budget.Set {
			return false
		}
		r.Reasoning.Effort = mapping.EffortUnset
		return true
	case "tool_choice":
		if r.ToolChoice == (ToolChoice{}) {
			return false
		}
		r.ToolChoice = ToolChoice{}
		return true
	}
	rest, ok := strings.CutPrefix(path, "tools[")
	if ok {
		i, rest, ok := cutIndex(rest)
		if !ok || i >= len(r.Tools) {
			return false
		}
		switch rest {
		case "":
			if t := &r.Tools[i]; r.ToolChoice.Mode == ToolChoiceNamed && r.ToolChoice.Name == t.Name && r.ToolChoice.Namespace == t.Namespace {
				r.ToolChoice = ToolChoice{}
			}
			r.Tools = slices.Delete(r.Tools, i, i+1)
			return true
		case ".strict":
			if !r.Tools[i].Strict.Set {
				return false
			}
			r.Tools[i].Strict = OptBool{}
			return true
		case ".format":
			// A custom tool's grammar: the tool stays, taking free
			// text.
			if r.Tools[i].Grammar == "" {
				return false
			}
			r.Tools[i].Grammar = ""
			return true
		}
		return false
	}
	// A content part: system[j] or messages[i].content[j] (.parts[j]),
	// optionally followed by .content[k] inside a tool result.
	var parts *[]Part
	if rest, ok = strings.CutPrefix(path, "system["); ok {
		parts = &r.System
	} else if rest, ok = strings.CutPrefix(path, "messages["); ok {
		i, after, ok := cutIndex(rest)
		if !ok || i >= len(r.Messages) {
			return false
		}
		if rest, ok = strings.CutPrefix(after, ".content["); !ok {
			if rest, ok = strings.CutPrefix(after, ".parts["); !ok {
				return false
			}
		}
		parts = &r.Messages[i].Parts
	} else {
		return false
	}
	j, rest, ok := cutIndex(rest)
	if !ok || j >= len(*parts) {
		return false
	}
	if rest == "" {
		*parts = slices.Delete(*parts, j, j+1)
		return true
	}
	rest, ok = strings.CutPrefix(rest, ".content[")
	p := &(*parts)[j]
	if !ok || p.Type != PartToolResult {
		return false
	}
	k, rest, ok := cutIndex(rest)
	if !ok || rest != "" || k >= len(p.Content) {
		return false
	}
	// The content slice may be shared with the decoder's backing array;
	// a copy keeps the deletion to this part.
	p.Content = slices.Delete(slices.Clone(p.Content), k, k+1)
	return true
}

// clear1 calls unset when *set, and reports whether it did.
func clear1(set *bool, unset func()) bool {
	if !*set {
		return false
	}
	unset()
	return true
}

// cutIndex reads "n]" at the start of s and returns n and what follows.
func cutIndex(s string) (int, string, bool) {
	end := strings.IndexByte(s, ']')
	if end <= 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil || n < 0 {
		return 0, s, false
	}
	return n, s[end+1:], true
}

// FieldClass is the class of a request field in the field table (Fields):
// what happens to it on its way to the upstreams.
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

// Field is one request field a codec knows, with its class.
type Field struct {
	// Protocol is the client protocol family whose request body holds the
	// field: OpenAIChat, OpenAIResponses, AnthropicMessages (also
	// vertex-anthropic) or Gemini (also vertex).
	Protocol Protocol
	// Path is the field's path in that body, with [] for any array index.
	// A note in parentheses names the value the class is for, where other
	// values of the field have another class ("response_format
	// (json_object)").
	Path string
	// Class is the field's class over every upstream protocol: capability
	// when it is rejected toward at least one, else hint when it is
	// dropped toward at least one, else mapped.
	Class FieldClass
}

// Fields is the field table: every top-level field each client codec
// knows, and the nested fields and content kinds whose class differs from
// their container's (hints such as cache_control, capabilities such as URL
// images or citations). It is written by hand from the decoders' switch
// statements; codec/policy_test.go (TestFieldTable) proves every row by
// decoding a minimal request with the field and encoding it toward each
// upstream protocol, and renders the field table of docs/compatibility.md
// from it.
var Fields = []Field{
	// OpenAI Chat Completions.
	{OpenAIChat, "model", FieldMapped},
	{OpenAIChat, "messages", FieldMapped},
	{OpenAIChat, "max_tokens", FieldMapped},
	{OpenAIChat, "max_completion_tokens", FieldMapped},
	{OpenAIChat, "temperature", FieldMapped},
	{OpenAIChat, "top_p", FieldMapped},
	{OpenAIChat, "presence_penalty", FieldCapability},
	{OpenAIChat, "frequency_penalty", FieldCapability},
	{OpenAIChat, "seed", FieldHint},
	{OpenAIChat, "stop", FieldCapability},
	{OpenAIChat, "user", FieldHint},
	{OpenAIChat, "safety_identifier", FieldHint},
	{OpenAIChat, "stream", FieldMapped},
	{OpenAIChat, "stream_options.include_usage", FieldMapped},
	{OpenAIChat, "stream_options.include_obfuscation", FieldHint},
	{OpenAIChat, "n", FieldCapability},
	{OpenAIChat, "logprobs", FieldCapability},
	{OpenAIChat, "top_logprobs", FieldCapability},
	{OpenAIChat, "modalities", FieldCapability},
	{OpenAIChat, "response_format", FieldMapped},
	{OpenAIChat, "response_format (json_object)", FieldCapability},
	{OpenAIChat, "reasoning_effort", FieldMapped},
	{OpenAIChat, "verbosity", FieldCapability},
	{OpenAIChat, "tools", FieldMapped},
	{OpenAIChat, "tools[] (custom)", FieldCapability},
	{OpenAIChat, "tool_choice", FieldMapped},
	{OpenAIChat, "parallel_tool_calls", FieldHint},
	{OpenAIChat, "store", FieldHint},
	{OpenAIChat, "metadata", FieldHint},
	{OpenAIChat, "service_tier", FieldHint},
	{OpenAIChat, "prompt_cache_key", FieldHint},
	{OpenAIChat, "prompt_cache_retention", FieldCapability},
	{OpenAIChat, "logit_bias", FieldCapability},
	{OpenAIChat, "audio", FieldCapability},
	{OpenAIChat, "functions", FieldCapability},
	{OpenAIChat, "function_call", FieldCapability},
	{OpenAIChat, "prediction", FieldCapability},
	{OpenAIChat, "web_search_options", FieldCapability},
	{OpenAIChat, "messages[].name", FieldHint},
	{OpenAIChat, "messages[].role (function)", FieldCapability},
	{OpenAIChat, "messages[].tool_calls", FieldMapped},
	{OpenAIChat, "messages[].reasoning_content", FieldHint},
	{OpenAIChat, "messages[].annotations", FieldHint},
	{OpenAIChat, "messages[].function_call", FieldCapability},
	{OpenAIChat, "messages[].audio", FieldCapability},
	{OpenAIChat, "messages[].content[] (image_url, base64)", FieldMapped},
	{OpenAIChat, "messages[].content[] (image_url, URL)", FieldCapability},
	{OpenAIChat, "messages[].content[].image_url.detail", FieldHint},
	{OpenAIChat, "messages[].content[] (input_audio)", FieldCapability},
	{OpenAIChat, "messages[].content[] (file)", FieldMapped},
	{OpenAIChat, "messages[].content[].file.file_id", FieldCapability},

	// OpenAI Responses.
	{OpenAIResponses, "model", FieldMapped},
	{OpenAIResponses, "input", FieldMapped},
	{OpenAIResponses, "instructions", FieldMapped},
	{OpenAIResponses, "max_output_tokens", FieldMapped},
	{OpenAIResponses, "temperature", FieldMapped},
	{OpenAIResponses, "top_p", FieldMapped},
	{OpenAIResponses, "user", FieldHint},
	{OpenAIResponses, "safety_identifier", FieldHint},
	{OpenAIResponses, "stream", FieldMapped},
	{OpenAIResponses, "stream_options.include_obfuscation", FieldHint},
	{OpenAIResponses, "store", FieldHint},
	{OpenAIResponses, "metadata", FieldHint},
	{OpenAIResponses, "client_metadata", FieldHint},
	{OpenAIResponses, "service_tier", FieldHint},
	{OpenAIResponses, "prompt_cache_key", FieldHint},
	{OpenAIResponses, "max_tool_calls", FieldHint},
	{OpenAIResponses, "truncation", FieldHint},
	{OpenAIResponses, "truncation (auto)", FieldCapability},
	{OpenAIResponses, "include", FieldHint},
	{OpenAIResponses, "include (message.output_text.logprobs)", FieldCapability},
	{OpenAIResponses, "tools", FieldMapped},
	{OpenAIResponses, "tools[] (custom)", FieldMapped},
	{OpenAIResponses, "tools[] (namespace)", FieldMapped},
	{OpenAIResponses, "tools[] (web_search)", FieldCapability},
	{OpenAIResponses, "tools[] (tool_search, file_search, ...)", FieldCapability},
	{OpenAIResponses, "tool_choice", FieldMapped},
	{OpenAIResponses, "parallel_tool_calls", FieldHint},
	{OpenAIResponses, "text.format", FieldMapped},
	{OpenAIResponses, "text.format (json_object)", FieldCapability},
	{OpenAIResponses, "text.verbosity", FieldCapability},
	{OpenAIResponses, "reasoning.effort", FieldMapped},
	{OpenAIResponses, "reasoning.summary", FieldHint},
	{OpenAIResponses, "reasoning.context", FieldCapability},
	{OpenAIResponses, "background", FieldCapability},
	{OpenAIResponses, "top_logprobs", FieldCapability},
	{OpenAIResponses, "previous_response_id", FieldCapability},
	{OpenAIResponses, "conversation", FieldCapability},
	{OpenAIResponses, "prompt", FieldCapability},
	{OpenAIResponses, "prompt_cache_retention", FieldCapability},
	{OpenAIResponses, "context_management", FieldCapability},
	{OpenAIResponses, "moderation", FieldCapability},
	{OpenAIResponses, "image", FieldCapability},
	{OpenAIResponses, "input[].phase", FieldHint},
	{OpenAIResponses, "input[] (function_call, function_call_output)", FieldMapped},
	{OpenAIResponses, "input[] (item_reference)", FieldCapability},
	{OpenAIResponses, "input[].content[] (input_image, base64)", FieldMapped},
	{OpenAIResponses, "input[].content[] (input_image, URL)", FieldCapability},
	{OpenAIResponses, "input[].content[].detail", FieldHint},
	{OpenAIResponses, "input[].content[] (input_file)", FieldMapped},
	{OpenAIResponses, "input[].content[].file_id", FieldCapability},

	// Anthropic Messages (and Anthropic on Vertex).
	{AnthropicMessages, "model", FieldMapped},
	{AnthropicMessages, "messages", FieldMapped},
	{AnthropicMessages, "system", FieldMapped},
	{AnthropicMessages, "max_tokens", FieldMapped},
	{AnthropicMessages, "temperature", FieldMapped},
	{AnthropicMessages, "top_p", FieldMapped},
	{AnthropicMessages, "top_k", FieldCapability},
	{AnthropicMessages, "stop_sequences", FieldCapability},
	{AnthropicMessages, "stream", FieldMapped},
	{AnthropicMessages, "metadata.user_id", FieldHint},
	{AnthropicMessages, "service_tier", FieldHint},
	{AnthropicMessages, "inference_geo", FieldHint},
	{AnthropicMessages, "speed", FieldHint},
	{AnthropicMessages, "context_management", FieldHint},
	{AnthropicMessages, "context_management (edits clearing tool uses, compaction)", FieldCapability},
	{AnthropicMessages, "cache_control", FieldHint},
	{AnthropicMessages, "diagnostics", FieldHint},
	{AnthropicMessages, "thinking", FieldMapped},
	{AnthropicMessages, "thinking.display", FieldHint},
	{AnthropicMessages, "output_config.format", FieldMapped},
	{AnthropicMessages, "output_config.effort", FieldMapped},
	{AnthropicMessages, "tools", FieldMapped},
	{AnthropicMessages, "tools[].cache_control", FieldHint},
	{AnthropicMessages, "tools[].eager_input_streaming", FieldHint},
	{AnthropicMessages, "tools[] (web_search_20250305)", FieldCapability},
	{AnthropicMessages, "tool_choice", FieldMapped},
	{AnthropicMessages, "tool_choice.disable_parallel_tool_use", FieldHint},
	{AnthropicMessages, "mcp_servers", FieldCapability},
	{AnthropicMessages, "container", FieldCapability},
	{AnthropicMessages, "output_format", FieldCapability},
	{AnthropicMessages, "messages[].content[].cache_control", FieldHint},
	{AnthropicMessages, "messages[].content[] (tool_use, tool_result)", FieldMapped},
	{AnthropicMessages, "messages[].content[] (image, base64)", FieldMapped},
	{AnthropicMessages, "messages[].content[] (image, URL)", FieldCapability},
	{AnthropicMessages, "messages[].content[] (document)", FieldMapped},
	{AnthropicMessages, "messages[].content[].citations", FieldCapability},
	{AnthropicMessages, "messages[].content[].context", FieldCapability},
	{AnthropicMessages, "messages[].content[] (thinking)", FieldHint},

	// Gemini (and Vertex).
	{Gemini, "contents", FieldMapped},
	{Gemini, "systemInstruction", FieldMapped},
	{Gemini, "generationConfig.maxOutputTokens", FieldMapped},
	{Gemini, "generationConfig.temperature", FieldMapped},
	{Gemini, "generationConfig.topP", FieldMapped},
	{Gemini, "generationConfig.topK", FieldCapability},
	{Gemini, "generationConfig.seed", FieldHint},
	{Gemini, "generationConfig.presencePenalty", FieldCapability},
	{Gemini, "generationConfig.frequencyPenalty", FieldCapability},
	{Gemini, "generationConfig.stopSequences", FieldCapability},
	{Gemini, "generationConfig.candidateCount", FieldCapability},
	{Gemini, "generationConfig.responseMimeType (application/json)", FieldCapability},
	{Gemini, "generationConfig.responseJsonSchema", FieldMapped},
	{Gemini, "generationConfig.responseSchema", FieldMapped},
	{Gemini, "generationConfig.thinkingConfig", FieldMapped},
	{Gemini, "generationConfig.thinkingConfig.includeThoughts", FieldHint},
	{Gemini, "generationConfig.responseModalities", FieldCapability},
	{Gemini, "generationConfig.mediaResolution", FieldHint},
	{Gemini, "generationConfig.responseLogprobs", FieldCapability},
	{Gemini, "generationConfig.logprobs", FieldCapability},
	{Gemini, "generationConfig.audioTimestamp", FieldCapability},
	{Gemini, "generationConfig.speechConfig", FieldCapability},
	{Gemini, "generationConfig.imageConfig", FieldCapability},
	{Gemini, "safetySettings", FieldHint},
	{Gemini, "labels", FieldHint},
	{Gemini, "serviceTier", FieldHint},
	{Gemini, "modelArmorConfig", FieldHint},
	{Gemini, "model", FieldHint},
	{Gemini, "cachedContent", FieldCapability},
	{Gemini, "tools", FieldMapped},
	{Gemini, "tools[].googleSearch", FieldCapability},
	{Gemini, "tools[].functionDeclarations[].response", FieldCapability},
	{Gemini, "tools[].functionDeclarations[].behavior", FieldCapability},
	{Gemini, "toolConfig.functionCallingConfig", FieldMapped},
	{Gemini, "toolConfig.functionCallingConfig.mode (VALIDATED)", FieldCapability},
	{Gemini, "toolConfig.retrievalConfig", FieldCapability},
	{Gemini, "contents[].parts[] (functionCall, functionResponse)", FieldMapped},
	{Gemini, "contents[].parts[] (inlineData)", FieldMapped},
	{Gemini, "contents[].parts[] (fileData)", FieldCapability},
	{Gemini, "contents[].parts[] (thought)", FieldHint},
	{Gemini, "contents[].parts[].thoughtSignature", FieldHint},
}
