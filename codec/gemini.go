package codec

import (
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// This file is the codec of the Gemini generateContent body format, spoken
// by both the Gemini API (Gemini) and Vertex AI (Vertex). The model travels
// in the URL path, so it is neither read from nor written to the body, and
// streaming is chosen by the path (:streamGenerateContent), so the caller
// sets Request.Stream.
//
// Google's servers parse request bodies as proto JSON, which accepts both
// the lowerCamelCase and the original snake_case spelling of every field;
// the decoder accepts both as well, and error paths and Dropped entries use
// the spelling the client sent. When a field appears twice (once in each
// spelling), the last one wins, as in encoding/json.

// geminiContentPath names a Content in error paths without building the
// string unless an error needs it: contents[i], or the systemInstruction
// key as the client spelled it (index < 0).
type geminiContentPath struct {
	key   string
	index int
}

// String returns the path of the Content.
func (p geminiContentPath) String() string {
	if p.index < 0 {
		return p.key
	}
	return indexPath(p.key, p.index)
}

// part returns the path of the Content's j-th part.
func (p geminiContentPath) part(j int) string {
	return indexPath(p.String()+".parts", j)
}

// decodeGeminiRequest decodes a generateContent request body. Every part of
// the request (system instruction and all contents) is stored in one
// backing []Part, sub-sliced per message, so that a conversation costs two
// allocations whatever its length (plus one or two per text that holds
// JSON escapes, which gjson unescapes into new strings).
func decodeGeminiRequest(root gjson.Result, req *Request) *Error {
	// If the estimate falls short and the slice grows, the messages
	// decoded so far keep pointing into the old array, whose parts are
	// never modified, so they stay valid.
	parts := make([]Part, 0, geminiKeyEstimate(root.Raw, `"text"`))
	hasContents := false
	var err *Error
	eachMember(root, &req.text, func(k, v gjson.Result) bool {
		switch k.Str {
		case "contents":
			if v.Type == gjson.Null {
				return true
			}
			hasContents = true
			parts, err = decodeGeminiContents(v, req, parts)
		case "systemInstruction", "system_instruction":
			parts, err = decodeGeminiSystemInstruction(v, k.Str, req, parts)
		case "generationConfig", "generation_config":
			err = decodeGeminiGenerationConfig(v, k.Str, req)
		case "safetySettings", "safety_settings":
			// Safety thresholds steer the provider's filters, not what the
			// model generates; no other protocol has a slot for them.
			err = dropGeminiHint(v, k.Str, req, "array", gjson.Result.IsArray)
		case "labels":
			// Billing labels (Vertex) only tag the request.
			err = dropGeminiHint(v, k.Str, req, "object", gjson.Result.IsObject)
		case "serviceTier", "service_tier":
			// The service tier is a scheduling hint, as service_tier is for
			// OpenAI and Anthropic.
			err = dropGeminiHint(v, k.Str, req, "string", isGeminiString)
		case "modelArmorConfig", "model_armor_config":
			// Model Armor templates (Vertex) are provider-side filters, like
			// safetySettings.
			err = dropGeminiHint(v, k.Str, req, "object", gjson.Result.IsObject)
		case "model":
			// Some SDKs repeat the model of the path in the body; the path
			// is what the server uses.
			err = dropGeminiHint(v, k.Str, req, "string", isGeminiString)
		case "cachedContent", "cached_content":
			if v.Type != gjson.Null {
				err = unsupportedField(k.Str, "cached content is server-side state that other providers cannot read")
			}
		case "tools":
			err = decodeGeminiTools(v, k.Str)
		case "toolConfig", "tool_config":
			if v.Type != gjson.Null {
				err = unsupportedField(k.Str, "tool configuration is not supported yet")
			}
		default:
			err = unknownField(k.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !hasContents {
		return invalid("contents", "is required")
	}
	return nil
}

// isGeminiString reports whether v is a JSON string.
func isGeminiString(v gjson.Result) bool { return v.Type == gjson.String }

// dropGeminiHint records the hint field at path in req.Dropped after
// checking that its value has the expected JSON type; null is absent.
func dropGeminiHint(v gjson.Result, path string, req *Request, want string, ok func(gjson.Result) bool) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !ok(v) {
		return wrongType(path, want, v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// decodeGeminiTools accepts an empty tools array, which asks for nothing;
// function declarations and built-in tools are a later issue.
func decodeGeminiTools(v gjson.Result, path string) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType(path, "array", v)
	}
	empty := true
	v.ForEach(func(_, _ gjson.Result) bool {
		empty = false
		return false
	})
	if !empty {
		return unsupportedField(path, "tools are not supported yet")
	}
	return nil
}

// decodeGeminiContents decodes the contents array into req.Messages,
// appending the parts to the shared backing slice.
func decodeGeminiContents(v gjson.Result, req *Request, parts []Part) ([]Part, *Error) {
	if !v.IsArray() {
		return parts, wrongType("contents", "array", v)
	}
	// Every Content in scope holds at least one text part, so the capacity
	// of the parts slice, an estimate of the texts in the request, bounds
	// the number of messages too (see geminiKeyEstimate).
	if n := cap(parts) - len(parts); cap(req.Messages) < n {
		req.Messages = make([]Message, 0, n)
	}
	req.Messages = req.Messages[:0]
	var err *Error
	i := 0
	eachMember(v, &req.text, func(_, c gjson.Result) bool {
		var msg Message
		msg, parts, err = decodeGeminiContent(c, geminiContentPath{key: "contents", index: i}, parts, &req.text)
		if err != nil {
			return false
		}
		req.Messages = append(req.Messages, msg)
		i++
		return true
	})
	if err == nil && i == 0 {
		err = invalid("contents", "must not be empty")
	}
	return parts, err
}

// geminiKeyEstimate estimates how often key (a quoted JSON key) occurs in
// raw JSON, to pre-size slices without a second parse. Inside a JSON string
// every quote is escaped, so a match is a key except in the rare string
// that ends in an escaped quote and the key's name; nested objects (tool
// payloads) may use the same keys. The estimate can therefore be too high,
// which wastes a little capacity, and is too low only when a key is
// spelled with escapes or a request is out of scope, which makes append
// grow the slice.
func geminiKeyEstimate(raw, key string) int {
	return strings.Count(raw, key)
}

// decodeGeminiContent decodes one Content of the conversation. Its role is
// "user" or "model"; a missing role is "user", as the API documents.
func decodeGeminiContent(c gjson.Result, path geminiContentPath, parts []Part, a *textArena) (Message, []Part, *Error) {
	msg := Message{Role: RoleUser}
	if !c.IsObject() {
		return msg, parts, wrongType(path.String(), "object", c)
	}
	start := len(parts)
	hasParts := false
	var err *Error
	c.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			msg.Role, err = decodeGeminiRole(v, path)
		case "parts":
			if v.Type != gjson.Null {
				hasParts = true
				parts, err = decodeGeminiParts(v, path, parts, a)
			}
		default:
			err = unknownField(path.String() + "." + k.Str)
		}
		return err == nil
	})
	if err != nil {
		return msg, parts, err
	}
	if len(parts) == start {
		// Gemini itself rejects a turn without parts.
		if !hasParts {
			return msg, parts, invalid(path.String()+".parts", "is required")
		}
		return msg, parts, invalid(path.String()+".parts", "must not be empty")
	}
	// A three-index slice, so that appending to one message's parts can
	// never overwrite the next message's.
	msg.Parts = parts[start:len(parts):len(parts)]
	return msg, parts, nil
}

// decodeGeminiRole decodes a Content's role; null is absent (user).
func decodeGeminiRole(v gjson.Result, path geminiContentPath) (Role, *Error) {
	switch {
	case v.Type == gjson.Null:
		return RoleUser, nil
	case v.Type != gjson.String:
		return RoleUser, wrongType(path.String()+".role", "string", v)
	case v.Str == "user":
		return RoleUser, nil
	case v.Str == "model":
		return RoleAssistant, nil
	}
	return RoleUser, invalid(path.String()+".role", `must be "user" or "model"`)
}

// decodeGeminiSystemInstruction decodes systemInstruction, a Content whose
// role the server ignores, into req.System.
func decodeGeminiSystemInstruction(v gjson.Result, key string, req *Request, parts []Part) ([]Part, *Error) {
	if v.Type == gjson.Null {
		return parts, nil
	}
	path := geminiContentPath{key: key, index: -1}
	if !v.IsObject() {
		return parts, wrongType(key, "object", v)
	}
	start := len(parts)
	var err *Error
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "role":
			if f.Type != gjson.Null && f.Type != gjson.String {
				err = wrongType(key+".role", "string", f)
			}
		case "parts":
			if f.Type != gjson.Null {
				parts, err = decodeGeminiParts(f, path, parts, &req.text)
			}
		default:
			err = unknownField(key + "." + k.Str)
		}
		return err == nil
	})
	if err != nil {
		return parts, err
	}
	if len(parts) == start {
		req.System = req.System[:0]
		return parts, nil
	}
	req.System = parts[start:len(parts):len(parts)]
	req.SystemRole = RoleSystem
	return parts, nil
}

// decodeGeminiParts decodes a Content's parts array, appending to parts.
func decodeGeminiParts(v gjson.Result, path geminiContentPath, parts []Part, a *textArena) ([]Part, *Error) {
	if !v.IsArray() {
		return parts, wrongType(path.String()+".parts", "array", v)
	}
	var err *Error
	j := 0
	v.ForEach(func(_, p gjson.Result) bool {
		var part Part
		part, err = decodeGeminiPart(p, path, j, a)
		if err != nil {
			return false
		}
		parts = append(parts, part)
		j++
		return true
	})
	return parts, err
}

// decodeGeminiPart decodes one Part. A Part holds one kind of data (text,
// inlineData, functionCall, ...) plus metadata; only text is in scope, and
// every other kind is rejected by name so that nothing is dropped silently.
func decodeGeminiPart(p gjson.Result, path geminiContentPath, j int, a *textArena) (Part, *Error) {
	part := Part{Type: PartText}
	if !p.IsObject() {
		return part, wrongType(path.part(j), "object", p)
	}
	hasText := false
	var err *Error
	eachMember(p, a, func(k, v gjson.Result) bool {
		switch k.Str {
		// The checks are written out rather than left to readString and
		// readBool so that the path is only built for an error.
		case "text":
			switch v.Type {
			case gjson.String:
				part.Text, hasText = v.Str, true
			case gjson.Null:
			default:
				err = wrongType(path.part(j)+".text", "string", v)
			}
		case "thought":
			// thought:false is the default and means plain text.
			switch v.Type {
			case gjson.False, gjson.Null:
			case gjson.True:
				err = unsupportedField(path.part(j)+".thought", "thought parts (reasoning) are not supported yet")
			default:
				err = wrongType(path.part(j)+".thought", "boolean", v)
			}
		case "thoughtSignature", "thought_signature":
			if v.Type != gjson.Null {
				err = unsupportedField(path.part(j)+"."+k.Str, "thought signatures (reasoning) are not supported yet")
			}
		case "inlineData", "inline_data", "fileData", "file_data",
			"functionCall", "function_call", "functionResponse", "function_response",
			"executableCode", "executable_code", "codeExecutionResult", "code_execution_result",
			"toolCall", "tool_call", "toolResponse", "tool_response",
			"videoMetadata", "video_metadata", "mediaResolution", "media_resolution":
			if v.Type != gjson.Null {
				err = unsupportedField(path.part(j), `content part type "`+k.Str+`" is not supported yet`)
			}
		default:
			err = unknownField(path.part(j) + "." + k.Str)
		}
		return err == nil
	})
	if err == nil && !hasText {
		err = invalid(path.part(j)+".text", "is required")
	}
	return part, err
}

// decodeGeminiGenerationConfig decodes generationConfig. Fields whose value
// is the proto default (candidateCount 1, responseMimeType "text/plain",
// responseModalities ["TEXT"], responseLogprobs false, ...) ask for nothing
// beyond plain text generation and are accepted.
func decodeGeminiGenerationConfig(v gjson.Result, key string, req *Request) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType(key, "object", v)
	}
	var err *Error
	v.ForEach(func(k, f gjson.Result) bool {
		err = decodeGeminiGenerationField(k.Str, f, key, req)
		return err == nil
	})
	return err
}

// decodeGeminiGenerationField decodes one field of generationConfig; key is
// the spelling of generationConfig. Errors are built with paths relative to
// the field and completed here, so that no path is built on success.
func decodeGeminiGenerationField(name string, f gjson.Result, key string, req *Request) *Error {
	err := decodeGeminiGenerationValue(name, f, key, req)
	if err != nil {
		err.Param = key + "." + name + err.Param
	}
	return err
}

// decodeGeminiGenerationValue decodes the value of generationConfig.name;
// the Param of an error it returns is relative to the field ("" or "[i]").
func decodeGeminiGenerationValue(name string, f gjson.Result, key string, req *Request) *Error {
	switch name {
	case "maxOutputTokens", "max_output_tokens":
		return readInt(f, "", &req.MaxTokens)
	case "temperature":
		return readFloat(f, "", &req.Temperature)
	case "topP", "top_p":
		return readFloat(f, "", &req.TopP)
	case "topK", "top_k":
		// topK is a float in Vertex's schema but integral in practice;
		// the canonical cutoff is an integer.
		return readInt(f, "", &req.TopK)
	case "seed":
		return readInt(f, "", &req.Seed)
	case "presencePenalty", "presence_penalty":
		return readFloat(f, "", &req.PresencePenalty)
	case "frequencyPenalty", "frequency_penalty":
		return readFloat(f, "", &req.FrequencyPenalty)
	case "stopSequences", "stop_sequences":
		var err *Error
		req.StopSequences, err = readStringList(f, "", false, req.StopSequences[:0])
		return err
	case "candidateCount", "candidate_count":
		var n OptInt
		if err := readInt(f, "", &n); err != nil {
			return err
		}
		if n.Value != 0 && n.Value != 1 {
			return unsupportedField("", "only one candidate is supported")
		}
	case "responseMimeType", "response_mime_type":
		switch {
		case f.Type == gjson.Null:
		case f.Type != gjson.String:
			return wrongType("", "string", f)
		case f.Str != "" && f.Str != "text/plain":
			return unsupportedField("", "structured output is not supported yet")
		}
	case "responseModalities", "response_modalities":
		return decodeGeminiModalities(f)
	case "mediaResolution", "media_resolution":
		// The resolution at which input media are tokenised has no
		// canonical slot; it only affects cost and detail of media input.
		switch f.Type {
		case gjson.Null:
		case gjson.String:
			req.Dropped = append(req.Dropped, key+"."+name)
		default:
			return wrongType("", "string", f)
		}
	case "responseLogprobs", "response_logprobs", "audioTimestamp", "audio_timestamp":
		switch f.Type {
		case gjson.Null, gjson.False:
		case gjson.True:
			return unsupportedField("", geminiGenerationWhy(name))
		default:
			return wrongType("", "boolean", f)
		}
	case "logprobs":
		var n OptInt
		if err := readInt(f, "", &n); err != nil {
			return err
		}
		if n.Value != 0 {
			return unsupportedField("", geminiGenerationWhy(name))
		}
	case "responseSchema", "response_schema", "responseJsonSchema", "response_json_schema",
		"thinkingConfig", "thinking_config", "speechConfig", "speech_config",
		"imageConfig", "image_config":
		if f.Type != gjson.Null {
			return unsupportedField("", geminiGenerationWhy(name))
		}
	default:
		return unknownField("")
	}
	return nil
}

// geminiGenerationWhy explains why a generationConfig capability is
// rejected.
func geminiGenerationWhy(name string) string {
	switch name {
	case "responseLogprobs", "response_logprobs", "logprobs":
		return "log probabilities are not supported yet"
	case "audioTimestamp", "audio_timestamp", "speechConfig", "speech_config":
		return "audio is not supported yet"
	case "thinkingConfig", "thinking_config":
		return "thinking configuration is not supported yet"
	case "imageConfig", "image_config":
		return "image output is not supported yet"
	}
	return "structured output is not supported yet"
}

// decodeGeminiModalities accepts responseModalities that ask for text
// only; error paths are relative to the field.
func decodeGeminiModalities(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("", "array of strings", v)
	}
	var err *Error
	i := 0
	v.ForEach(func(_, m gjson.Result) bool {
		switch {
		case m.Type != gjson.String:
			err = wrongType(indexPath("", i), "string", m)
		case m.Str != "TEXT":
			err = unsupportedField(indexPath("", i), "only TEXT output is supported")
		}
		i++
		return err == nil
	})
	return err
}

// appendGeminiRequest appends req as a generateContent body. The model is
// not written: it belongs in the URL path, which the caller builds; and
// Gemini does not require an output limit. So opts has nothing to add.
//
// Gemini has a single system instruction at the top level, so req.System
// and every system or developer message later in the conversation are
// hoisted into systemInstruction, in order. The remaining turns must
// alternate between user and model, so consecutive turns of the same role
// are merged into one Content with their parts concatenated.
func appendGeminiRequest(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	start := len(dst)
	dst = append(dst, `{"contents":[`...)
	dst, n, err := appendGeminiContents(dst, req)
	if err != nil {
		return dst[:start], err
	}
	if n == 0 {
		return dst[:start], cannotEncode(Gemini, "messages", "a conversation without any user or assistant text")
	}
	dst = append(dst, ']')
	if dst, err = appendGeminiSystemInstruction(dst, req); err != nil {
		return dst[:start], err
	}
	dst = appendGeminiGenerationConfig(dst, req)
	dst = append(dst, '}')
	if req.User != "" {
		// Gemini has no end-user identifier.
		req.Dropped = append(req.Dropped, "user")
	}
	return dst, nil
}

// geminiRole returns the Content role of a user or assistant message.
func geminiRole(r Role) string {
	if r == RoleAssistant {
		return "model"
	}
	return "user"
}

// geminiPartText returns the text a part becomes in Gemini, where a refusal
// is plain model text; ok is false for a part Gemini cannot carry.
func geminiPartText(p Part) (text string, ok bool) {
	switch p.Type {
	case PartText, PartRefusal:
		return p.Text, true
	}
	return "", false
}

// appendGeminiContents appends the conversation turns and returns how many
// Contents it wrote.
//
// Empty text parts are skipped and a turn left without parts is dropped,
// because Gemini rejects empty parts and contents with 400 INVALID_ARGUMENT.
// Merging happens after that, so a dropped turn between two turns of the
// same role merges them.
func appendGeminiContents(dst []byte, req *Request) ([]byte, int, *Error) {
	n := 0
	open := false
	var openRole string
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == RoleSystem || m.Role == RoleDeveloper {
			continue
		}
		role := geminiRole(m.Role)
		for j := range m.Parts {
			text, ok := geminiPartText(m.Parts[j])
			if !ok {
				return dst, n, cannotEncode(Gemini, indexPath(indexPath("messages", i)+".content", j), "this content part type")
			}
			if text == "" {
				continue
			}
			switch {
			case open && role == openRole:
				dst = append(dst, ',')
			default:
				if open {
					dst = append(dst, `]},`...)
				}
				dst = append(dst, `{"role":"`...)
				dst = append(dst, role...)
				dst = append(dst, `","parts":[`...)
				open, openRole = true, role
				n++
			}
			dst = append(dst, `{"text":`...)
			dst = appendString(dst, text)
			dst = append(dst, '}')
		}
	}
	if open {
		dst = append(dst, `]}`...)
	}
	return dst, n, nil
}

// appendGeminiSystemInstruction appends systemInstruction from req.System
// and the system and developer messages of the conversation, in order, and
// nothing when they hold no text.
func appendGeminiSystemInstruction(dst []byte, req *Request) ([]byte, *Error) {
	written := false
	var err *Error
	dst, written, err = appendGeminiSystemParts(dst, req.System, written, "system")
	if err != nil {
		return dst, err
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role != RoleSystem && m.Role != RoleDeveloper {
			continue
		}
		dst, written, err = appendGeminiSystemParts(dst, m.Parts, written, indexPath("messages", i)+".content")
		if err != nil {
			return dst, err
		}
	}
	if written {
		dst = append(dst, `]}`...)
	}
	return dst, nil
}

// appendGeminiSystemParts appends the non-empty parts to systemInstruction,
// opening it before the first one; path names the parts for errors only.
func appendGeminiSystemParts(dst []byte, parts []Part, written bool, path string) ([]byte, bool, *Error) {
	for j := range parts {
		text, ok := geminiPartText(parts[j])
		if !ok {
			return dst, written, cannotEncode(Gemini, indexPath(path, j), "this system content part type")
		}
		if text == "" {
			continue
		}
		if written {
			dst = append(dst, ',')
		} else {
			dst = append(dst, `,"systemInstruction":{"parts":[`...)
			written = true
		}
		dst = append(dst, `{"text":`...)
		dst = appendString(dst, text)
		dst = append(dst, '}')
	}
	return dst, written, nil
}

// appendGeminiGenerationConfig appends generationConfig with the sampling
// parameters that are set, and nothing when none is.
func appendGeminiGenerationConfig(dst []byte, req *Request) []byte {
	start := len(dst)
	dst = append(dst, `,"generationConfig":{`...)
	empty := len(dst)
	if req.MaxTokens.Set {
		dst = appendGeminiKey(dst, empty, "maxOutputTokens")
		dst = appendInt(dst, req.MaxTokens.Value)
	}
	if req.Temperature.Set {
		dst = appendGeminiKey(dst, empty, "temperature")
		dst = appendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = appendGeminiKey(dst, empty, "topP")
		dst = appendFloat(dst, req.TopP.Value)
	}
	if req.TopK.Set {
		dst = appendGeminiKey(dst, empty, "topK")
		dst = appendInt(dst, req.TopK.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = appendGeminiKey(dst, empty, "stopSequences")
		dst = appendStringArray(dst, req.StopSequences)
	}
	if req.Seed.Set {
		dst = appendGeminiKey(dst, empty, "seed")
		dst = appendInt(dst, req.Seed.Value)
	}
	if req.PresencePenalty.Set {
		dst = appendGeminiKey(dst, empty, "presencePenalty")
		dst = appendFloat(dst, req.PresencePenalty.Value)
	}
	if req.FrequencyPenalty.Set {
		dst = appendGeminiKey(dst, empty, "frequencyPenalty")
		dst = appendFloat(dst, req.FrequencyPenalty.Value)
	}
	if len(dst) == empty {
		return dst[:start]
	}
	return append(dst, '}')
}

// appendGeminiKey appends "key": to an object whose first field would start
// at offset empty, with a comma unless it is the first field.
func appendGeminiKey(dst []byte, empty int, key string) []byte {
	if len(dst) > empty {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// decodeGeminiResponse decodes a non-streamed GenerateContentResponse.
// Fields that carry no canonical meaning (safetyRatings, citationMetadata,
// avgLogprobs, the token details per modality, ...) are ignored; fields the
// codec reads must have the right type.
func decodeGeminiResponse(root gjson.Result, resp *Response) *Error {
	var candidate gjson.Result
	var blockReason string
	var err *Error
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "candidates":
			if v.Type == gjson.Null {
				return true
			}
			if !v.IsArray() {
				err = badUpstream(Gemini, "candidates is not an array")
				return false
			}
			// Only one candidate is ever asked for (candidateCount
			// greater than 1 is rejected), so the first is the answer.
			v.ForEach(func(_, c gjson.Result) bool {
				candidate = c
				return false
			})
		case "promptFeedback":
			blockReason, err = decodeGeminiBlockReason(v)
		case "usageMetadata":
			err = decodeGeminiUsage(v, &resp.Usage)
		case "modelVersion":
			resp.Model, err = geminiResponseString(v, "modelVersion")
		case "responseId":
			resp.ID, err = geminiResponseString(v, "responseId")
		case "createTime":
			resp.Created, err = decodeGeminiCreateTime(v)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if candidate.Exists() {
		return decodeGeminiCandidate(candidate, resp)
	}
	if blockReason != "" {
		// The prompt itself was blocked: no candidate was generated.
		resp.StopReason = mapping.StopContentFilter
		return nil
	}
	return badUpstream(Gemini, "response has no candidates and no promptFeedback.blockReason")
}

// geminiResponseString reads an optional string field of a response.
func geminiResponseString(v gjson.Result, name string) (string, *Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", badUpstream(Gemini, name+" is not a string")
}

// decodeGeminiCreateTime reads Vertex's createTime, an RFC 3339 timestamp.
func decodeGeminiCreateTime(v gjson.Result) (int64, *Error) {
	s, err := geminiResponseString(v, "createTime")
	if err != nil || s == "" {
		return 0, err
	}
	t, perr := time.Parse(time.RFC3339Nano, s)
	if perr != nil {
		return 0, badUpstream(Gemini, "createTime is not an RFC 3339 timestamp")
	}
	return t.Unix(), nil
}

// decodeGeminiBlockReason reads promptFeedback.blockReason.
func decodeGeminiBlockReason(v gjson.Result) (string, *Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsObject() {
		return "", badUpstream(Gemini, "promptFeedback is not an object")
	}
	return geminiResponseString(v.Get("blockReason"), "promptFeedback.blockReason")
}

// decodeGeminiUsage converts usageMetadata to canonical usage: Gemini's
// candidatesTokenCount excludes thoughts, which mapping.FromGeminiUsage adds.
func decodeGeminiUsage(v gjson.Result, u *Usage) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return badUpstream(Gemini, "usageMetadata is not an object")
	}
	var prompt, toolUsePrompt, cached, candidates, thoughts int64
	var err *Error
	v.ForEach(func(k, n gjson.Result) bool {
		var dst *int64
		switch k.Str {
		case "promptTokenCount":
			dst = &prompt
		case "toolUsePromptTokenCount":
			dst = &toolUsePrompt
		case "cachedContentTokenCount":
			dst = &cached
		case "candidatesTokenCount":
			dst = &candidates
		case "thoughtsTokenCount":
			dst = &thoughts
		default:
			return true
		}
		if n.Type != gjson.Number {
			err = badUpstream(Gemini, "usageMetadata."+k.Str+" is not a number")
			return false
		}
		*dst = n.Int()
		return true
	})
	if err != nil {
		return err
	}
	*u = mapping.FromGeminiUsage(prompt, toolUsePrompt, cached, candidates, thoughts)
	return nil
}

// decodeGeminiCandidate decodes the answer's content and finish reason. A
// candidate stopped by a filter (SAFETY, MODEL_ARMOR, ...) may have an
// empty content or none at all.
func decodeGeminiCandidate(c gjson.Result, resp *Response) *Error {
	if !c.IsObject() {
		return badUpstream(Gemini, "candidates[0] is not an object")
	}
	var err *Error
	c.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			err = decodeGeminiResponseContent(v, resp)
		case "finishReason":
			var reason string
			reason, err = geminiResponseString(v, "candidates[0].finishReason")
			resp.StopReason = mapping.FromGeminiFinishReason(reason)
		}
		return err == nil
	})
	return err
}

// decodeGeminiResponseContent decodes candidates[0].content.parts.
func decodeGeminiResponseContent(v gjson.Result, resp *Response) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return badUpstream(Gemini, "candidates[0].content is not an object")
	}
	parts := v.Get("parts")
	if parts.Type == gjson.Null || !parts.Exists() {
		return nil
	}
	if !parts.IsArray() {
		return badUpstream(Gemini, "candidates[0].content.parts is not an array")
	}
	var err *Error
	parts.ForEach(func(_, p gjson.Result) bool {
		err = decodeGeminiResponsePart(p, resp)
		return err == nil
	})
	return err
}

// decodeGeminiResponsePart appends the text of one response part to
// resp.Content. Thought summaries (thought:true) are skipped for now, as
// reasoning is a later issue; so is thoughtSignature, which only matters
// when sent back with the reasoning it signs. Empty text is skipped too: it
// carries nothing (Gemini pads final chunks with {"text":""}). Any other
// kind of data cannot be translated yet and fails the response rather than
// being lost.
func decodeGeminiResponsePart(p gjson.Result, resp *Response) *Error {
	if !p.IsObject() {
		return badUpstream(Gemini, "candidates[0].content.parts has an element that is not an object")
	}
	var text string
	thought := false
	var err *Error
	p.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "text":
			text, err = geminiResponseString(v, "part text")
		case "thought":
			thought = v.Type == gjson.True
		case "thoughtSignature", "partMetadata":
		default:
			err = badUpstream(Gemini, `content part kind "`+k.Str+`" cannot be translated yet`)
		}
		return err == nil
	})
	if err == nil && !thought && text != "" {
		resp.Content = append(resp.Content, Part{Type: PartText, Text: text})
	}
	return err
}

// appendGeminiResponse appends resp as a GenerateContentResponse, with the
// fields google.golang.org/genai reads. Refusals become plain model text,
// as Gemini has no refusal slot. usageMetadata is omitted when the upstream
// reported no usage, rather than claiming zero tokens.
func appendGeminiResponse(dst []byte, resp *Response) ([]byte, *Error) {
	start := len(dst)
	dst = append(dst, `{"candidates":[{"content":{"role":"model"`...)
	written := false
	for i := range resp.Content {
		text, ok := geminiPartText(resp.Content[i])
		if !ok {
			return dst[:start], geminiCannotCarry()
		}
		if text == "" {
			continue
		}
		if written {
			dst = append(dst, ',')
		} else {
			// Like Google's proto JSON, which omits empty repeated
			// fields, parts is left out when there are none.
			dst = append(dst, `,"parts":[`...)
			written = true
		}
		dst = append(dst, `{"text":`...)
		dst = appendString(dst, text)
		dst = append(dst, '}')
	}
	if written {
		dst = append(dst, ']')
	}
	dst = append(dst, `},"finishReason":`...)
	dst = appendString(dst, mapping.GeminiFinishReason(resp.StopReason))
	dst = append(dst, `,"index":0}]`...)
	if resp.Usage.Known {
		dst = appendGeminiUsage(dst, &resp.Usage)
	}
	if resp.Model != "" {
		dst = append(dst, `,"modelVersion":`...)
		dst = appendString(dst, resp.Model)
	}
	id := resp.ID
	if id == "" {
		// Gemini response ids carry no prefix.
		id = newID("")
	}
	dst = append(dst, `,"responseId":`...)
	dst = appendString(dst, id)
	return append(dst, '}'), nil
}

// geminiCannotCarry is the error for response content that a Gemini client
// cannot be given: the request was valid, so it is a 502, not a 400.
func geminiCannotCarry() *Error {
	return &Error{Status: 502, Kind: mapping.ErrBadGateway,
		Message: "the upstream response holds content that cannot be expressed in the gemini protocol"}
}

// appendGeminiUsage appends usageMetadata in Gemini's meaning:
// candidatesTokenCount excludes thoughts and promptTokenCount includes
// cached tokens.
func appendGeminiUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `,"usageMetadata":{"promptTokenCount":`...)
	dst = appendInt(dst, u.InputTokens)
	dst = append(dst, `,"candidatesTokenCount":`...)
	dst = appendInt(dst, u.GeminiCandidatesTokens())
	dst = append(dst, `,"totalTokenCount":`...)
	dst = appendInt(dst, u.TotalTokens())
	if u.CacheReadTokens > 0 {
		dst = append(dst, `,"cachedContentTokenCount":`...)
		dst = appendInt(dst, u.CacheReadTokens)
	}
	if u.ReasoningTokens > 0 {
		dst = append(dst, `,"thoughtsTokenCount":`...)
		dst = appendInt(dst, u.ReasoningTokens)
	}
	return append(dst, '}')
}
