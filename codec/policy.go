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

// fieldClass is the class of a request field in the field table (fieldTable):
// what happens to it on its way to the upstreams.
type fieldClass uint8

// Field classes.
const (
	// fieldMapped is carried to every upstream protocol.
	fieldMapped fieldClass = iota
	// fieldHint has no effect on what the model generates; toward at least
	// one upstream protocol it is dropped and listed in Request.Dropped,
	// and it is never rejected.
	fieldHint
	// fieldCapability changes what the model can produce and cannot be
	// carried toward at least one upstream protocol (or at all): it is
	// rejected there (an Error of ClassCapability).
	fieldCapability
)

var fieldClassNames = [...]string{"mapped", "hint", "capability"}

// String returns mapped, hint or capability.
func (c fieldClass) String() string {
	if int(c) < len(fieldClassNames) {
		return fieldClassNames[c]
	}
	return "class_" + strconv.Itoa(int(c))
}

// fieldRow is one request field a codec knows, with its class.
type fieldRow struct {
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
	Class fieldClass
}

// fieldTable is the field table: every top-level field each client codec
// knows, and the nested fields and content kinds whose class differs from
// their container's (hints such as cache_control, capabilities such as URL
// images or citations). It is written by hand from the decoders' switch
// statements; codec/policy_test.go (TestFieldTable) proves every row by
// decoding a minimal request with the field and encoding it toward each
// upstream protocol, and renders the field table of docs/compatibility.md
// from it.
var fieldTable = []fieldRow{
	// OpenAI Chat Completions.
	{OpenAIChat, "model", fieldMapped},
	{OpenAIChat, "messages", fieldMapped},
	{OpenAIChat, "max_tokens", fieldMapped},
	{OpenAIChat, "max_completion_tokens", fieldMapped},
	{OpenAIChat, "temperature", fieldMapped},
	{OpenAIChat, "top_p", fieldMapped},
	{OpenAIChat, "presence_penalty", fieldCapability},
	{OpenAIChat, "frequency_penalty", fieldCapability},
	{OpenAIChat, "seed", fieldHint},
	{OpenAIChat, "stop", fieldCapability},
	{OpenAIChat, "user", fieldHint},
	{OpenAIChat, "safety_identifier", fieldHint},
	{OpenAIChat, "stream", fieldMapped},
	{OpenAIChat, "stream_options.include_usage", fieldMapped},
	{OpenAIChat, "stream_options.include_obfuscation", fieldHint},
	{OpenAIChat, "n", fieldCapability},
	{OpenAIChat, "logprobs", fieldCapability},
	{OpenAIChat, "top_logprobs", fieldCapability},
	{OpenAIChat, "modalities", fieldCapability},
	{OpenAIChat, "response_format", fieldMapped},
	{OpenAIChat, "response_format (json_object)", fieldCapability},
	{OpenAIChat, "reasoning_effort", fieldMapped},
	{OpenAIChat, "verbosity", fieldCapability},
	{OpenAIChat, "tools", fieldMapped},
	{OpenAIChat, "tools[] (custom)", fieldCapability},
	{OpenAIChat, "tool_choice", fieldMapped},
	{OpenAIChat, "parallel_tool_calls", fieldHint},
	{OpenAIChat, "store", fieldHint},
	{OpenAIChat, "metadata", fieldHint},
	{OpenAIChat, "service_tier", fieldHint},
	{OpenAIChat, "prompt_cache_key", fieldHint},
	{OpenAIChat, "prompt_cache_retention", fieldCapability},
	{OpenAIChat, "logit_bias", fieldCapability},
	{OpenAIChat, "audio", fieldCapability},
	{OpenAIChat, "functions", fieldCapability},
	{OpenAIChat, "function_call", fieldCapability},
	{OpenAIChat, "prediction", fieldCapability},
	{OpenAIChat, "web_search_options", fieldCapability},
	{OpenAIChat, "messages[].name", fieldHint},
	{OpenAIChat, "messages[].role (function)", fieldCapability},
	{OpenAIChat, "messages[].tool_calls", fieldMapped},
	{OpenAIChat, "messages[].reasoning_content", fieldHint},
	{OpenAIChat, "messages[].annotations", fieldHint},
	{OpenAIChat, "messages[].function_call", fieldCapability},
	{OpenAIChat, "messages[].audio", fieldCapability},
	{OpenAIChat, "messages[].content[] (image_url, base64)", fieldMapped},
	{OpenAIChat, "messages[].content[] (image_url, URL)", fieldCapability},
	{OpenAIChat, "messages[].content[].image_url.detail", fieldHint},
	{OpenAIChat, "messages[].content[] (input_audio)", fieldCapability},
	{OpenAIChat, "messages[].content[] (file)", fieldMapped},
	{OpenAIChat, "messages[].content[].file.file_id", fieldCapability},

	// OpenAI Responses.
	{OpenAIResponses, "model", fieldMapped},
	{OpenAIResponses, "input", fieldMapped},
	{OpenAIResponses, "instructions", fieldMapped},
	{OpenAIResponses, "max_output_tokens", fieldMapped},
	{OpenAIResponses, "temperature", fieldMapped},
	{OpenAIResponses, "top_p", fieldMapped},
	{OpenAIResponses, "user", fieldHint},
	{OpenAIResponses, "safety_identifier", fieldHint},
	{OpenAIResponses, "stream", fieldMapped},
	{OpenAIResponses, "stream_options.include_obfuscation", fieldHint},
	{OpenAIResponses, "store", fieldHint},
	{OpenAIResponses, "metadata", fieldHint},
	{OpenAIResponses, "client_metadata", fieldHint},
	{OpenAIResponses, "service_tier", fieldHint},
	{OpenAIResponses, "prompt_cache_key", fieldHint},
	{OpenAIResponses, "max_tool_calls", fieldHint},
	{OpenAIResponses, "truncation", fieldHint},
	{OpenAIResponses, "truncation (auto)", fieldCapability},
	{OpenAIResponses, "include", fieldHint},
	{OpenAIResponses, "include (message.output_text.logprobs)", fieldCapability},
	{OpenAIResponses, "tools", fieldMapped},
	{OpenAIResponses, "tools[] (custom)", fieldMapped},
	{OpenAIResponses, "tools[] (namespace)", fieldMapped},
	{OpenAIResponses, "tools[] (web_search)", fieldCapability},
	{OpenAIResponses, "tools[] (tool_search, file_search, ...)", fieldCapability},
	{OpenAIResponses, "tool_choice", fieldMapped},
	{OpenAIResponses, "parallel_tool_calls", fieldHint},
	{OpenAIResponses, "text.format", fieldMapped},
	{OpenAIResponses, "text.format (json_object)", fieldCapability},
	{OpenAIResponses, "text.verbosity", fieldCapability},
	{OpenAIResponses, "reasoning.effort", fieldMapped},
	{OpenAIResponses, "reasoning.summary", fieldHint},
	{OpenAIResponses, "reasoning.context", fieldCapability},
	{OpenAIResponses, "background", fieldCapability},
	{OpenAIResponses, "top_logprobs", fieldCapability},
	{OpenAIResponses, "previous_response_id", fieldCapability},
	{OpenAIResponses, "conversation", fieldCapability},
	{OpenAIResponses, "prompt", fieldCapability},
	{OpenAIResponses, "prompt_cache_retention", fieldCapability},
	{OpenAIResponses, "context_management", fieldCapability},
	{OpenAIResponses, "moderation", fieldCapability},
	{OpenAIResponses, "image", fieldCapability},
	{OpenAIResponses, "input[].phase", fieldHint},
	{OpenAIResponses, "input[] (function_call, function_call_output)", fieldMapped},
	{OpenAIResponses, "input[] (item_reference)", fieldCapability},
	{OpenAIResponses, "input[].content[] (input_image, base64)", fieldMapped},
	{OpenAIResponses, "input[].content[] (input_image, URL)", fieldCapability},
	{OpenAIResponses, "input[].content[].detail", fieldHint},
	{OpenAIResponses, "input[].content[] (input_file)", fieldMapped},
	{OpenAIResponses, "input[].content[].file_id", fieldCapability},

	// Anthropic Messages (and Anthropic on Vertex).
	{AnthropicMessages, "model", fieldMapped},
	{AnthropicMessages, "messages", fieldMapped},
	{AnthropicMessages, "system", fieldMapped},
	{AnthropicMessages, "max_tokens", fieldMapped},
	{AnthropicMessages, "temperature", fieldMapped},
	{AnthropicMessages, "top_p", fieldMapped},
	{AnthropicMessages, "top_k", fieldCapability},
	{AnthropicMessages, "stop_sequences", fieldCapability},
	{AnthropicMessages, "stream", fieldMapped},
	{AnthropicMessages, "metadata.user_id", fieldHint},
	{AnthropicMessages, "service_tier", fieldHint},
	{AnthropicMessages, "inference_geo", fieldHint},
	{AnthropicMessages, "speed", fieldHint},
	{AnthropicMessages, "context_management", fieldHint},
	{AnthropicMessages, "context_management (edits clearing tool uses, compaction)", fieldCapability},
	{AnthropicMessages, "cache_control", fieldHint},
	{AnthropicMessages, "diagnostics", fieldHint},
	{AnthropicMessages, "thinking", fieldMapped},
	{AnthropicMessages, "thinking.display", fieldHint},
	{AnthropicMessages, "output_config.format", fieldMapped},
	{AnthropicMessages, "output_config.effort", fieldMapped},
	{AnthropicMessages, "tools", fieldMapped},
	{AnthropicMessages, "tools[].cache_control", fieldHint},
	{AnthropicMessages, "tools[].eager_input_streaming", fieldHint},
	{AnthropicMessages, "tools[] (web_search_20250305)", fieldCapability},
	{AnthropicMessages, "tool_choice", fieldMapped},
	{AnthropicMessages, "tool_choice.disable_parallel_tool_use", fieldHint},
	{AnthropicMessages, "mcp_servers", fieldCapability},
	{AnthropicMessages, "container", fieldCapability},
	{AnthropicMessages, "output_format", fieldCapability},
	{AnthropicMessages, "messages[].content[].cache_control", fieldHint},
	{AnthropicMessages, "messages[].content[] (tool_use, tool_result)", fieldMapped},
	{AnthropicMessages, "messages[].content[] (image, base64)", fieldMapped},
	{AnthropicMessages, "messages[].content[] (image, URL)", fieldCapability},
	{AnthropicMessages, "messages[].content[] (document)", fieldMapped},
	{AnthropicMessages, "messages[].content[].citations", fieldCapability},
	{AnthropicMessages, "messages[].content[].context", fieldCapability},
	{AnthropicMessages, "messages[].content[] (thinking)", fieldHint},

	// Gemini (and Vertex).
	{Gemini, "contents", fieldMapped},
	{Gemini, "systemInstruction", fieldMapped},
	{Gemini, "generationConfig.maxOutputTokens", fieldMapped},
	{Gemini, "generationConfig.temperature", fieldMapped},
	{Gemini, "generationConfig.topP", fieldMapped},
	{Gemini, "generationConfig.topK", fieldCapability},
	{Gemini, "generationConfig.seed", fieldHint},
	{Gemini, "generationConfig.presencePenalty", fieldCapability},
	{Gemini, "generationConfig.frequencyPenalty", fieldCapability},
	{Gemini, "generationConfig.stopSequences", fieldCapability},
	{Gemini, "generationConfig.candidateCount", fieldCapability},
	{Gemini, "generationConfig.responseMimeType (application/json)", fieldCapability},
	{Gemini, "generationConfig.responseJsonSchema", fieldMapped},
	{Gemini, "generationConfig.responseSchema", fieldMapped},
	{Gemini, "generationConfig.thinkingConfig", fieldMapped},
	{Gemini, "generationConfig.thinkingConfig.includeThoughts", fieldHint},
	{Gemini, "generationConfig.responseModalities", fieldCapability},
	{Gemini, "generationConfig.mediaResolution", fieldHint},
	{Gemini, "generationConfig.responseLogprobs", fieldCapability},
	{Gemini, "generationConfig.logprobs", fieldCapability},
	{Gemini, "generationConfig.audioTimestamp", fieldCapability},
	{Gemini, "generationConfig.speechConfig", fieldCapability},
	{Gemini, "generationConfig.imageConfig", fieldCapability},
	{Gemini, "safetySettings", fieldHint},
	{Gemini, "labels", fieldHint},
	{Gemini, "serviceTier", fieldHint},
	{Gemini, "modelArmorConfig", fieldHint},
	{Gemini, "model", fieldHint},
	{Gemini, "cachedContent", fieldCapability},
	{Gemini, "tools", fieldMapped},
	{Gemini, "tools[].googleSearch", fieldCapability},
	{Gemini, "tools[].functionDeclarations[].response", fieldCapability},
	{Gemini, "tools[].functionDeclarations[].behavior", fieldCapability},
	{Gemini, "toolConfig.functionCallingConfig", fieldMapped},
	{Gemini, "toolConfig.functionCallingConfig.mode (VALIDATED)", fieldCapability},
	{Gemini, "toolConfig.retrievalConfig", fieldCapability},
	{Gemini, "contents[].parts[] (functionCall, functionResponse)", fieldMapped},
	{Gemini, "contents[].parts[] (inlineData)", fieldMapped},
	{Gemini, "contents[].parts[] (fileData)", fieldCapability},
	{Gemini, "contents[].parts[] (thought)", fieldHint},
	{Gemini, "contents[].parts[].thoughtSignature", fieldHint},
}
