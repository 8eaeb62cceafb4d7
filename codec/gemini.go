package codec

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
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
	var choice geminiToolChoice
	var err *Error
	jsonx.EachMember(root, &req.text, func(k, v gjson.Result) bool {
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
			err = decodeGeminiTools(v, k.Str, req)
		case "toolConfig", "tool_config":
			choice, err = decodeGeminiToolConfig(v, k.Str, req)
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
	if err := choice.resolve(req); err != nil {
		return err
	}
	return resolveGeminiToolResults(req)
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

// geminiHostedTools are the keys of Gemini's built-in tools, which run on
// Google's side and are not translated in this round.
var geminiHostedTools = map[string]bool{
	"googleSearch": true, "google_search": true, "googleSearchRetrieval": true, "google_search_retrieval": true,
	"codeExecution": true, "code_execution": true, "urlContext": true, "url_context": true,
	"retrieval": true, "enterpriseWebSearch": true, "enterprise_web_search": true,
	"googleMaps": true, "google_maps": true, "computerUse": true, "computer_use": true,
	"fileSearch": true, "file_search": true, "parallelAiSearch": true, "parallel_ai_search": true,
}

// decodeGeminiTools decodes the tools array: each Tool's
// functionDeclarations become function tools; built-in (hosted) tools are
// rejected by name.
func decodeGeminiTools(v gjson.Result, key string, req *Request) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType(key, "array", v)
	}
	var err *Error
	i := 0
	jsonx.EachMember(v, &req.text, func(_, t gjson.Result) bool {
		err = decodeGeminiTool(t, indexPath(key, i), req)
		i++
		return err == nil
	})
	return err
}

// decodeGeminiTool decodes one Tool at path.
func decodeGeminiTool(t gjson.Result, path string, req *Request) *Error {
	if !t.IsObject() {
		return wrongType(path, "object", t)
	}
	var err *Error
	jsonx.EachMember(t, &req.text, func(k, f gjson.Result) bool {
		switch {
		case k.Str == "functionDeclarations" || k.Str == "function_declarations":
			err = decodeGeminiFunctionDeclarations(f, path+"."+k.Str, req)
		case k.Str == "googleSearch" || k.Str == "google_search":
			err = decodeGeminiSearch(f, path+"."+k.Str, req)
		case geminiHostedTools[k.Str]:
			if f.Type != gjson.Null {
				err = unsupportedField(path+"."+k.Str, `hosted tool "`+k.Str+`" cannot be translated (only googleSearch is); remove the tool or ask the operator to drop it (field `+path+"."+k.Str+`)`)
			}
		default:
			err = unknownField(path + "." + k.Str)
		}
		return err == nil
	})
	return err
}

// decodeGeminiSearch decodes the googleSearch tool at path: Gemini's hosted
// web search. Its options (timeRangeFilter, excludeDomains on Vertex)
// narrow what is found; excludeDomains is the blocked domain list, a time
// range has no equivalent elsewhere and is rejected.
func decodeGeminiSearch(v gjson.Result, path string, req *Request) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	t := Tool{Kind: ToolWebSearch, Name: "web_search", Source: path}
	var err *Error
	jsonx.EachMember(v, &req.text, func(k, f gjson.Result) bool {
		p := path + "." + k.Str
		switch k.Str {
		case "excludeDomains", "exclude_domains":
			t.WebSearch.BlockedDomains, err = readStrings(f, p, t.WebSearch.BlockedDomains)
		case "timeRangeFilter", "time_range_filter":
			err = rejectUnlessNull(f, p, "a search time range has no equivalent in other protocols")
		default:
			err = unknownField(p)
		}
		return err == nil
	})
	req.Tools = append(req.Tools, t)
	return err
}

// decodeGeminiFunctionDeclarations appends the declared functions to
// req.Tools.
func decodeGeminiFunctionDeclarations(v gjson.Result, path string, req *Request) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType(path, "array", v)
	}
	var err *Error
	i := 0
	jsonx.EachMember(v, &req.text, func(_, f gjson.Result) bool {
		err = decodeGeminiFunctionDeclaration(f, indexPath(path, i), req)
		i++
		return err == nil
	})
	return err
}

// decodeGeminiFunctionDeclaration decodes one FunctionDeclaration. Its
// parametersJsonSchema is JSON Schema already and is copied as raw text;
// the legacy parameters (an OpenAPI-subset Schema) is converted to JSON
// Schema by appendGeminiJSONSchema. A function with neither takes no
// arguments (Parameters "").
func decodeGeminiFunctionDeclaration(f gjson.Result, path string, req *Request) *Error {
	if !f.IsObject() {
		return wrongType(path, "object", f)
	}
	tool := Tool{Kind: ToolFunction}
	var legacy, schema gjson.Result
	var legacyKey, schemaKey string
	var err *Error
	jsonx.EachMember(f, &req.text, func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			tool.Name, err = geminiOptString(v, path+".name")
		case "description":
			tool.Description, err = geminiOptString(v, path+".description")
		case "parameters":
			legacy, legacyKey = v, k.Str
		case "parametersJsonSchema", "parameters_json_schema":
			schema, schemaKey = v, k.Str
		case "response", "responseJsonSchema", "response_json_schema":
			if v.Type != gjson.Null {
				err = unsupportedField(path+"."+k.Str, "schemas of a function's return value have no equivalent in other protocols")
			}
		case "behavior":
			if v.Type != gjson.Null && !(v.Type == gjson.String && (v.Str == "BLOCKING" || v.Str == "UNSPECIFIED")) {
				err = unsupportedField(path+".behavior", "non-blocking functions (Live API) are not supported")
			}
		default:
			err = unknownField(path + "." + k.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if tool.Name == "" {
		return invalid(path+".name", "is required")
	}
	hasLegacy := legacy.Exists() && legacy.Type != gjson.Null
	hasSchema := schema.Exists() && schema.Type != gjson.Null
	switch {
	case hasLegacy && hasSchema:
		return invalid(path+"."+schemaKey, "parameters and parametersJsonSchema must not both be set")
	case hasSchema:
		if !schema.IsObject() {
			return wrongType(path+"."+schemaKey, "object", schema)
		}
		tool.Parameters = schema.Raw
	case hasLegacy:
		if !legacy.IsObject() {
			return wrongType(path+"."+legacyKey, "object", legacy)
		}
		b, err := appendGeminiJSONSchema(nil, legacy, path+"."+legacyKey, req)
		if err != nil {
			return err
		}
		tool.Parameters = jsonx.BytesToString(b)
	}
	req.Tools = append(req.Tools, tool)
	return nil
}

// geminiSchemaTypes maps the legacy Schema's Type enum to JSON Schema type
// names; TYPE_UNSPECIFIED is no type. Lower-case names are accepted too.
var geminiSchemaTypes = map[string]string{
	"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
	"ARRAY": "array", "OBJECT": "object", "NULL": "null", "TYPE_UNSPECIFIED": "",
	"string": "string", "number": "number", "integer": "integer", "boolean": "boolean",
	"array": "array", "object": "object", "null": "null",
}

// appendGeminiJSONSchema converts the legacy Gemini Schema s (the
// OpenAPI 3.0 subset of FunctionDeclaration.parameters) at path to JSON
// Schema and appends it to dst. It is the one place where that conversion
// is done:
//
//   - type: the upper-case enum name becomes the JSON Schema type name;
//     nullable: true adds "null" (type ["string","null"]); TYPE_UNSPECIFIED
//     and a missing type write no type.
//   - properties, items, anyOf and additionalProperties (a schema) are
//     converted recursively; required, enum, format, title, description,
//     pattern, default, minimum, maximum and a boolean
//     additionalProperties are copied.
//   - minItems, maxItems, minLength, maxLength, minProperties and
//     maxProperties, int64 fields that proto JSON may write as strings,
//     become numbers.
//   - example becomes examples: [example].
//   - propertyOrdering, an ordering hint of Gemini's structured output, has
//     no JSON Schema keyword: it is dropped and reported in req.Dropped.
//
// Every other key (ref, defs, ...) is rejected, naming its path.
func appendGeminiJSONSchema(dst []byte, s gjson.Result, path string, req *Request) ([]byte, *Error) {
	nullable := false
	var err *Error
	jsonx.EachMember(s, &req.text, func(k, v gjson.Result) bool {
		if k.Str == "nullable" {
			switch v.Type {
			case gjson.True:
				nullable = true
			case gjson.False, gjson.Null:
			default:
				err = wrongType(path+".nullable", "boolean", v)
			}
		}
		return err == nil
	})
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	empty := len(dst)
	jsonx.EachMember(s, &req.text, func(k, v gjson.Result) bool {
		if v.Type == gjson.Null {
			return true
		}
		fpath := path + "." + k.Str
		switch k.Str {
		case "nullable":
		case "type":
			if v.Type != gjson.String {
				err = wrongType(fpath, "string", v)
				break
			}
			t, ok := geminiSchemaTypes[v.Str]
			switch {
			case !ok:
				err = invalid(fpath, `unknown type "`+v.Str+`"`)
			case t == "":
			case nullable && t != "null":
				dst = appendGeminiKey(dst, empty, "type")
				dst = append(dst, `["`...)
				dst = append(dst, t...)
				dst = append(dst, `","null"]`...)
			default:
				dst = appendGeminiKey(dst, empty, "type")
				dst = jsonx.AppendString(dst, t)
			}
		case "format", "title", "description", "pattern":
			if v.Type != gjson.String {
				err = wrongType(fpath, "string", v)
				break
			}
			dst = appendGeminiKey(dst, empty, k.Str)
			dst = jsonx.AppendString(dst, v.Str)
		case "enum", "required":
			var list []string
			if list, err = readStringList(v, fpath, false, nil); err == nil {
				dst = appendGeminiKey(dst, empty, k.Str)
				dst = jsonx.AppendStringArray(dst, list)
			}
		case "minimum", "maximum":
			if v.Type != gjson.Number {
				err = wrongType(fpath, "number", v)
				break
			}
			dst = appendGeminiKey(dst, empty, k.Str)
			dst = append(dst, v.Raw...)
		case "default":
			dst = appendGeminiKey(dst, empty, "default")
			dst = append(dst, v.Raw...)
		case "example":
			dst = appendGeminiKey(dst, empty, "examples")
			dst = append(dst, '[')
			dst = append(dst, v.Raw...)
			dst = append(dst, ']')
		case "minItems", "min_items", "maxItems", "max_items", "minLength", "min_length",
			"maxLength", "max_length", "minProperties", "min_properties", "maxProperties", "max_properties":
			n, ok := geminiInt64(v)
			if !ok {
				err = wrongType(fpath, "integer", v)
				break
			}
			dst = appendGeminiKey(dst, empty, geminiCamel(k.Str))
			dst = jsonx.AppendInt(dst, n)
		case "properties":
			if !v.IsObject() {
				err = wrongType(fpath, "object", v)
				break
			}
			dst = appendGeminiKey(dst, empty, "properties")
			dst = append(dst, '{')
			first := true
			jsonx.EachMember(v, &req.text, func(name, sub gjson.Result) bool {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = jsonx.AppendString(dst, name.Str)
				dst = append(dst, ':')
				dst, err = appendGeminiSubSchema(dst, sub, fpath+"."+name.Str, req)
				return err == nil
			})
			dst = append(dst, '}')
		case "items":
			dst = appendGeminiKey(dst, empty, "items")
			dst, err = appendGeminiSubSchema(dst, v, fpath, req)
		case "additionalProperties", "additional_properties":
			dst = appendGeminiKey(dst, empty, "additionalProperties")
			if v.Type == gjson.True || v.Type == gjson.False {
				dst = append(dst, v.Raw...)
				break
			}
			dst, err = appendGeminiSubSchema(dst, v, fpath, req)
		case "anyOf", "any_of":
			if !v.IsArray() {
				err = wrongType(fpath, "array", v)
				break
			}
			dst = appendGeminiKey(dst, empty, "anyOf")
			dst = append(dst, '[')
			i := 0
			jsonx.EachMember(v, &req.text, func(_, sub gjson.Result) bool {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst, err = appendGeminiSubSchema(dst, sub, indexPath(fpath, i), req)
				i++
				return err == nil
			})
			dst = append(dst, ']')
		case "propertyOrdering", "property_ordering":
			req.Dropped = append(req.Dropped, fpath)
		default:
			err = unsupportedField(fpath, "this Schema field has no JSON Schema conversion; use parametersJsonSchema")
		}
		return err == nil
	})
	return append(dst, '}'), err
}

// appendGeminiSubSchema converts a nested legacy Schema, which must be an
// object.
func appendGeminiSubSchema(dst []byte, v gjson.Result, path string, req *Request) ([]byte, *Error) {
	if !v.IsObject() {
		return dst, wrongType(path, "object", v)
	}
	return appendGeminiJSONSchema(dst, v, path, req)
}

// geminiInt64 reads a proto JSON int64: a JSON integer or a decimal string.
func geminiInt64(v gjson.Result) (int64, bool) {
	switch v.Type {
	case gjson.Number:
		if v.Num >= 0 && v.Num == float64(int64(v.Num)) {
			return int64(v.Num), true
		}
	case gjson.String:
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil && n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// geminiCamel returns the lowerCamelCase spelling of a snake_case key.
func geminiCamel(k string) string {
	i := strings.IndexByte(k, '_')
	if i < 0 {
		return k
	}
	return k[:i] + strings.ToUpper(k[i+1:i+2]) + k[i+2:]
}

// geminiToolChoice is a decoded toolConfig, resolved against the tools
// once the whole request is read.
type geminiToolChoice struct {
	// names are the allowedFunctionNames, at path.
	names []string
	path  string
}

// decodeGeminiToolConfig decodes toolConfig.functionCallingConfig into
// req.ToolChoice: AUTO is auto, NONE none, ANY required, and ANY with one
// allowed function name forces that function (ANY with several names is
// resolved by resolve). VALIDATED (constrained decoding of calls or text)
// has no equivalent elsewhere. streamFunctionCallArguments only shapes the
// stream (arguments are then sent whole) and is dropped as a hint.
func decodeGeminiToolConfig(v gjson.Result, key string, req *Request) (geminiToolChoice, *Error) {
	var c geminiToolChoice
	switch {
	case v.Type == gjson.Null:
		return c, nil
	case !v.IsObject():
		return c, wrongType(key, "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &req.text, func(k, f gjson.Result) bool {
		switch k.Str {
		case "functionCallingConfig", "function_calling_config":
			c, err = decodeGeminiFunctionCallingConfig(f, key+"."+k.Str, req)
		case "retrievalConfig", "retrieval_config":
			if f.Type != gjson.Null {
				err = unsupportedField(key+"."+k.Str, "retrieval configuration is for hosted tools, which are not supported yet")
			}
		default:
			err = unknownField(key + "." + k.Str)
		}
		return err == nil
	})
	return c, err
}

// decodeGeminiFunctionCallingConfig decodes functionCallingConfig at path.
func decodeGeminiFunctionCallingConfig(v gjson.Result, path string, req *Request) (geminiToolChoice, *Error) {
	var c geminiToolChoice
	switch {
	case v.Type == gjson.Null:
		return c, nil
	case !v.IsObject():
		return c, wrongType(path, "object", v)
	}
	var err *Error
	hasNames := false
	jsonx.EachMember(v, &req.text, func(k, f gjson.Result) bool {
		fpath := path + "." + k.Str
		switch k.Str {
		case "mode":
			var mode string
			if mode, err = geminiOptString(f, fpath); err != nil {
				break
			}
			switch mode {
			case "", "MODE_UNSPECIFIED":
				req.ToolChoice.Mode = ToolChoiceUnset
			case "AUTO":
				req.ToolChoice.Mode = ToolChoiceAuto
			case "NONE":
				req.ToolChoice.Mode = ToolChoiceNone
			case "ANY":
				req.ToolChoice.Mode = ToolChoiceRequired
			case "VALIDATED":
				err = unsupportedField(fpath, "mode VALIDATED has no equivalent in other protocols")
			default:
				err = invalid(fpath, `must be "AUTO", "ANY", "NONE" or "VALIDATED"`)
			}
		case "allowedFunctionNames", "allowed_function_names":
			hasNames = f.Type != gjson.Null
			c.names, err = readStringList(f, fpath, false, nil)
			c.path = fpath
		case "streamFunctionCallArguments", "stream_function_call_arguments":
			var b bool
			if f.Type != gjson.Null {
				b, err = readBool(f, fpath)
			}
			if b {
				req.Dropped = append(req.Dropped, fpath)
			}
		default:
			err = unknownField(fpath)
		}
		return err == nil
	})
	if err == nil && hasNames && req.ToolChoice.Mode != ToolChoiceRequired {
		err = invalid(c.path, "is only allowed with mode ANY")
	}
	return c, err
}

// resolve applies allowedFunctionNames once the tools are known: one name
// forces that function; several that name every declared function are the
// same as none (any function); any other set has no equivalent in other
// protocols, which can force one tool or any.
func (c *geminiToolChoice) resolve(req *Request) *Error {
	switch {
	case len(c.names) == 0:
		return nil
	case len(c.names) == 1:
		req.ToolChoice = ToolChoice{Mode: ToolChoiceNamed, Name: c.names[0]}
		return nil
	}
	for _, t := range req.Tools {
		found := false
		for _, n := range c.names {
			found = found || n == t.Name
		}
		if !found {
			return unsupportedField(c.path, "allowing a subset of the functions has no equivalent in other protocols (name one function, or all)")
		}
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
	jsonx.EachMember(v, &req.text, func(_, c gjson.Result) bool {
		var msg Message
		msg, parts, err = decodeGeminiContent(c, geminiContentPath{key: "contents", index: i}, parts, req)
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
func decodeGeminiContent(c gjson.Result, path geminiContentPath, parts []Part, req *Request) (Message, []Part, *Error) {
	msg := Message{Role: RoleUser}
	if !c.IsObject() {
		return msg, parts, wrongType(path.String(), "object", c)
	}
	start := len(parts)
	hasParts := false
	var wire gjson.Result
	var err *Error
	jsonx.EachMember(c, &req.text, func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			msg.Role, err = decodeGeminiRole(v, path)
		case "parts":
			if v.Type != gjson.Null {
				hasParts = true
				wire = v
				parts, err = decodeGeminiParts(v, path, parts, req)
			}
		default:
			err = unknownField(path.String() + "." + k.Str)
		}
		return err == nil
	})
	if err == nil && msg.Role != RoleAssistant {
		// The role may follow the parts (genai writes parts first), so
		// reasoning is checked once the whole turn is read.
		parts, err = geminiNonModelReasoning(wire, path, parts, start, req)
	}
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
	var wire gjson.Result
	var err *Error
	jsonx.EachMember(v, &req.text, func(k, f gjson.Result) bool {
		switch k.Str {
		case "role":
			if f.Type != gjson.Null && f.Type != gjson.String {
				err = wrongType(key+".role", "string", f)
			}
		case "parts":
			if f.Type != gjson.Null {
				wire = f
				parts, err = decodeGeminiParts(f, path, parts, req)
			}
		default:
			err = unknownField(key + "." + k.Str)
		}
		return err == nil
	})
	if err == nil {
		parts, err = geminiNonModelReasoning(wire, path, parts, start, req)
	}
	if err != nil {
		return parts, err
	}
	if len(parts) == start {
		req.System = req.System[:0]
		return parts, nil
	}
	for j := start; j < len(parts); j++ {
		if parts[j].Type != PartText {
			return parts, unsupportedField(path.part(j-start), "a system instruction holds text only")
		}
	}
	req.System = parts[start:len(parts):len(parts)]
	req.SystemRole = RoleSystem
	return parts, nil
}

// decodeGeminiParts decodes a Content's parts array, appending to parts.
//
// A thoughtSignature belongs to the reasoning before the part that carries
// it (Gemini puts it on the first part after the thoughts, or on an empty
// text part at the end): it signs the part's own reasoning when the part is
// a thought, else the unsigned reasoning part just before it, else a new
// empty reasoning part inserted before the carrying part. An empty text
// part that only carries a signature adds nothing else.
func decodeGeminiParts(v gjson.Result, path geminiContentPath, parts []Part, req *Request) ([]Part, *Error) {
	if !v.IsArray() {
		return parts, wrongType(path.String()+".parts", "array", v)
	}
	start := len(parts)
	var err *Error
	j := 0
	jsonx.EachMember(v, &req.text, func(_, p gjson.Result) bool {
		var part Part
		var sig, sigKey string
		part, sig, sigKey, err = decodeGeminiPart(p, path, j, req)
		if err != nil {
			return false
		}
		if sig != "" {
			parts, err = geminiSign(parts, start, &part, sig)
			if err != nil {
				err.Param = path.part(j) + "." + sigKey
				return false
			}
		}
		n := len(parts)
		switch {
		case part.Type == PartText && part.Text == "" && sig != "":
			// Only the signature: it is applied already.
		case part.Type == PartReasoning && part.Text == "" && part.Signature == "":
			// An empty thought carries nothing.
		case part.Type == PartReasoning && part.Signature == "" && n > start &&
			parts[n-1].Type == PartReasoning && parts[n-1].Signature == "":
			// A client that replays a streamed answer as it came sends one
			// thought part per chunk: they are one reasoning, which the
			// signature after them signs as a whole.
			parts[n-1].Text += part.Text
		default:
			parts = append(parts, part)
		}
		j++
		return true
	})
	return parts, err
}

// geminiSign applies a client's thoughtSignature value to part, the part
// that carried it, or to the reasoning before it in parts[start:] (see
// decodeGeminiParts). The value may hold several continuation tokens (see
// appendGeminiToken): each signs, in order, the next part of the run of
// unsigned reasoning just before the carrying part, or becomes a reasoning
// part of its own when none is left (the client dropped the thought parts;
// an Anthropic token restores the text). Errors have no path; the caller
// sets it.
func geminiSign(parts []Part, start int, part *Part, sig string) ([]Part, *Error) {
	run := len(parts)
	for run > start && parts[run-1].Type == PartReasoning && parts[run-1].Signature == "" {
		run--
	}
	for rest := geminiUnwrapSignature(sig); rest != ""; {
		tok := rest
		if k := strings.IndexByte(rest, ' '); k >= 0 && mapping.IsEnvelope(rest) {
			tok, rest = rest[:k], rest[k+1:]
		} else {
			rest = ""
		}
		var r Part
		if err := readOpaque(&r, tok, mapping.FamilyGemini, ""); err != nil {
			return parts, err
		}
		if part.Type == PartReasoning && part.Signature == "" {
			// A thought part that carries its own signature.
			geminiSetSignature(part, &r)
			continue
		}
		if run < len(parts) {
			geminiSetSignature(&parts[run], &r)
			run++
			continue
		}
		r.Type = PartReasoning
		parts = append(parts, r)
		run = len(parts)
	}
	return parts, nil
}

// geminiSetSignature copies the opaque state of r into reasoning part p,
// and the text the envelope's signature covers when it carries one (see
// appendGeminiToken).
func geminiSetSignature(p, r *Part) {
	p.Signature, p.Origin, p.Redacted = r.Signature, r.Origin, r.Redacted
	if r.ItemID != "" {
		p.ItemID = r.ItemID
	}
	if r.Text != "" {
		p.Text = r.Text
	}
}

// geminiWrappedPrefix is the standard (and URL-safe) base64 encoding of
// "llmbridge.v1", the first 12 bytes of every continuation token: a
// thoughtSignature that starts with it is a wrapped token (see
// appendGeminiToken).
const geminiWrappedPrefix = "bGxtYnJpZGdlLnYx"

// geminiUnwrapSignature returns the continuation tokens a Gemini client's
// thoughtSignature wraps, space-separated, or the value itself when it
// wraps none (a native Gemini signature, or a bare token). genai's
// Part.ThoughtSignature is []byte, which JSON carries as standard base64,
// so llmbridge wraps its tokens (whose '.', '-' and '_' are not standard
// base64) in base64 (see appendGeminiPendingField); this unwraps them in
// either base64 alphabet, with or without padding, as SDKs re-encode bytes
// in their own way (pydantic-ai replays URL-safe base64).
func geminiUnwrapSignature(value string) string {
	if strings.HasPrefix(value, geminiWrappedPrefix) {
		if tok, ok := geminiUnwrap(value); ok && mapping.IsEnvelope(tok) {
			return tok
		}
	}
	return value
}

// geminiUnwrap decodes s as base64, padded or not. A token's bytes are
// letters, digits, '.', '-' and '_', whose base64 never holds '+' or '/':
// the standard and URL-safe encodings of a token are the same. A value
// longer than any wrapped envelope is not one, and is not copied.
func geminiUnwrap(s string) (string, bool) {
	s = strings.TrimRight(s, "=")
	if len(s) > base64.RawStdEncoding.EncodedLen(mapping.MaxEnvelopeSize) {
		return "", false
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// geminiNonModelReasoning checks the reasoning decoded in a turn that is
// not the model's (a user turn or the system instruction), whose wire parts
// are v: a thought part there is an error, as only the model thinks; a
// thoughtSignature (which then only made an empty reasoning part) means
// nothing outside a model turn and is dropped as a hint, as it was before
// reasoning was translated.
func geminiNonModelReasoning(v gjson.Result, path geminiContentPath, parts []Part, start int, req *Request) ([]Part, *Error) {
	found := false
	for i := start; i < len(parts) && !found; i++ {
		found = parts[i].Type == PartReasoning
	}
	if !found {
		return parts, nil
	}
	var err *Error
	j := 0
	jsonx.EachMember(v, &req.text, func(_, p gjson.Result) bool {
		if p.Get("thought").Type == gjson.True {
			err = invalid(path.part(j)+".thought", `thought parts (reasoning) are only allowed in "model" turns`)
			return false
		}
		for _, k := range [...]string{"thoughtSignature", "thought_signature"} {
			if s := p.Get(k); s.Type == gjson.String && s.Str != "" {
				req.Dropped = append(req.Dropped, path.part(j)+"."+k)
			}
		}
		j++
		return true
	})
	if err != nil {
		return parts, err
	}
	n := start
	for i := start; i < len(parts); i++ {
		if parts[i].Type != PartReasoning {
			parts[n] = parts[i]
			n++
		}
	}
	return parts[:n], nil
}

// decodeGeminiPart decodes one Part. A Part holds one kind of data (text,
// functionCall, functionResponse, inlineData, ...) plus metadata; kinds out
// of scope are rejected by name so that nothing is dropped silently, and so
// is a part that holds two kinds at once. A text part with thought: true is
// reasoning. sig is the part's thoughtSignature, spelled sigKey, which
// decodeGeminiParts applies; a part may hold nothing but a signature.
func decodeGeminiPart(p gjson.Result, path geminiContentPath, j int, req *Request) (part Part, sig, sigKey string, err *Error) {
	part = Part{Type: PartText}
	if !p.IsObject() {
		return part, "", "", wrongType(path.part(j), "object", p)
	}
	kind := "" // the key of the part's data, once seen
	thought := false
	jsonx.EachMember(p, &req.text, func(k, v gjson.Result) bool {
		switch k.Str {
		// The checks are written out rather than left to readString and
		// readBool so that the path is only built for an error.
		case "text":
			switch v.Type {
			case gjson.String:
				if err = geminiOneKind(&kind, k.Str, path, j); err == nil {
					part.Type, part.Text = PartText, v.Str
					part.keepLiteral(v)
				}
			case gjson.Null:
			default:
				err = wrongType(path.part(j)+".text", "string", v)
			}
		case "thought":
			// thought:false is the default and means plain text.
			switch v.Type {
			case gjson.False, gjson.Null:
				thought = false
			case gjson.True:
				thought = true
			default:
				err = wrongType(path.part(j)+".thought", "boolean", v)
			}
		case "thoughtSignature", "thought_signature":
			switch v.Type {
			case gjson.Null:
				sig, sigKey = "", ""
			case gjson.String:
				sig, sigKey = v.Str, k.Str
			default:
				err = wrongType(path.part(j)+"."+k.Str, "string", v)
			}
		case "functionCall", "function_call":
			if v.Type == gjson.Null {
				break
			}
			if err = geminiOneKind(&kind, k.Str, path, j); err == nil {
				part, err = decodeGeminiFunctionCall(v, path, j, k.Str, &req.text)
			}
		case "functionResponse", "function_response":
			if v.Type == gjson.Null {
				break
			}
			if err = geminiOneKind(&kind, k.Str, path, j); err == nil {
				part, err = decodeGeminiFunctionResponse(v, path.part(j)+"."+k.Str, &req.text)
			}
		case "inlineData", "inline_data", "fileData", "file_data":
			if v.Type == gjson.Null {
				break
			}
			if err = geminiOneKind(&kind, k.Str, path, j); err == nil {
				file := k.Str == "fileData" || k.Str == "file_data"
				part, err = decodeGeminiMedia(v, path.part(j)+"."+k.Str, file, &req.text)
			}
		case "executableCode", "executable_code", "codeExecutionResult", "code_execution_result",
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
	switch {
	case err != nil:
	case kind == "" && sig == "":
		err = invalid(path.part(j)+".text", "is required")
	case thought && kind != "text" && kind != "":
		err = invalid(path.part(j)+".thought", "only a text part can be a thought")
	case thought:
		part.Type = PartReasoning
	}
	return part, sig, sigKey, err
}

// geminiOneKind records that a part holds data of kind key, and rejects a
// part that already holds another kind (the proto's data oneof).
func geminiOneKind(kind *string, key string, path geminiContentPath, j int) *Error {
	if *kind != "" {
		return invalid(path.part(j)+"."+key, "a part holds one kind of data, but this one also has "+*kind)
	}
	*kind = key
	return nil
}

// decodeGeminiFunctionCall decodes a functionCall part of the history
// (key is its spelling). Its args object is copied as raw text; a call
// without args has Arguments "". The Gemini API sends calls without id: a
// missing id is synthesised from the part's position, "call_<content
// index>_<part index>", which is stable for the same request and unique
// within it; functionResponses without id are matched to it by name (see
// resolveGeminiToolResults).
func decodeGeminiFunctionCall(v gjson.Result, path geminiContentPath, j int, key string, a *jsonx.Arena) (Part, *Error) {
	part := Part{Type: PartToolCall}
	fpath := path.part(j) + "." + key
	if !v.IsObject() {
		return part, wrongType(fpath, "object", v)
	}
	var err *Error
	jsonx.EachMember(v, a, func(k, f gjson.Result) bool {
		switch k.Str {
		case "id":
			part.ToolCallID, err = geminiOptString(f, fpath+".id")
		case "name":
			part.ToolName, err = geminiOptString(f, fpath+".name")
		case "args":
			switch {
			case f.Type == gjson.Null:
			case !f.IsObject():
				err = wrongType(fpath+".args", "object", f)
			default:
				part.Arguments = f.Raw
			}
		case "partialArgs", "partial_args":
			if f.Type != gjson.Null {
				err = unsupportedField(fpath+"."+k.Str, "partial arguments only occur in streamed responses; send the call's complete args")
			}
		case "willContinue", "will_continue":
			if f.Type != gjson.Null && f.Type != gjson.False {
				err = unsupportedField(fpath+"."+k.Str, "partial function calls only occur in streamed responses; send the complete call")
			}
		default:
			err = unknownField(fpath + "." + k.Str)
		}
		return err == nil
	})
	if err != nil {
		return part, err
	}
	if part.ToolName == "" {
		return part, invalid(fpath+".name", "is required")
	}
	if part.ToolCallID == "" {
		part.ToolCallID = "call_" + strconv.Itoa(path.index) + "_" + strconv.Itoa(j)
	}
	return part, nil
}

// geminiMediaType returns the part type of a media type: images, PDF
// documents and audio are carried; ok is false for the rest (video, ...).
func geminiMediaType(mime string) (t PartType, ok bool) {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return PartImage, true
	case mime == "application/pdf":
		return PartDocument, true
	case strings.HasPrefix(mime, "audio/"):
		return PartAudio, true
	}
	return PartText, false
}

// decodeGeminiMedia decodes an inlineData Blob {mimeType, data} (base64),
// or a fileData {mimeType, fileUri} (file), at fpath: images, PDF documents
// and (inline only) audio. A fileUri is kept as the part's URL; Gemini API
// Files API URIs name server-side state other providers cannot read and
// are rejected, as OpenAI file ids are. displayName is a label only.
func decodeGeminiMedia(v gjson.Result, fpath string, file bool, a *jsonx.Arena) (Part, *Error) {
	var part Part
	if !v.IsObject() {
		return part, wrongType(fpath, "object", v)
	}
	var mime, data, uri string
	var err *Error
	jsonx.EachMember(v, a, func(k, f gjson.Result) bool {
		switch {
		case k.Str == "mimeType" || k.Str == "mime_type":
			mime, err = geminiOptString(f, fpath+"."+k.Str)
		case k.Str == "displayName" || k.Str == "display_name":
			_, err = geminiOptString(f, fpath+"."+k.Str)
		case !file && k.Str == "data":
			data, err = geminiOptString(f, fpath+".data")
		case file && (k.Str == "fileUri" || k.Str == "file_uri"):
			uri, err = geminiOptString(f, fpath+"."+k.Str)
		default:
			err = unknownField(fpath + "." + k.Str)
		}
		return err == nil
	})
	if err != nil {
		return part, err
	}
	t, ok := geminiMediaType(mime)
	switch {
	case mime == "":
		return part, invalid(fpath+".mimeType", "is required")
	case !ok || (file && t == PartAudio):
		return part, unsupportedField(fpath+".mimeType", `media type "`+mime+`" is not supported`)
	case !file && data == "":
		return part, invalid(fpath+".data", "is required")
	case file && uri == "":
		return part, invalid(fpath+".fileUri", "is required")
	case file && strings.Contains(uri, "generativelanguage.googleapis.com/"):
		return part, unsupportedField(fpath+".fileUri", "Files API files are server-side state that other providers cannot read")
	case file && !strings.HasPrefix(uri, "https://") && !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "gs://"):
		return part, invalid(fpath+".fileUri", "must be an http(s) or gs:// URI")
	case !file:
		if err := checkBase64(fpath+".data", data); err != nil {
			return part, err
		}
	}
	return Part{Type: t, MediaType: mime, Data: data, URL: uri}, nil
}

// geminiOptString reads an optional string field of a request; null is "".
func geminiOptString(v gjson.Result, path string) (string, *Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", wrongType(path, "string", v)
}

// decodeGeminiFunctionResponse decodes a functionResponse part. Its
// response object becomes the result's content (see geminiResultContent);
// its id, when missing, is found by resolveGeminiToolResults.
func decodeGeminiFunctionResponse(v gjson.Result, fpath string, a *jsonx.Arena) (Part, *Error) {
	part := Part{Type: PartToolResult}
	if !v.IsObject() {
		return part, wrongType(fpath, "object", v)
	}
	var response gjson.Result
	var err *Error
	jsonx.EachMember(v, a, func(k, f gjson.Result) bool {
		switch k.Str {
		case "id":
			part.ToolCallID, err = geminiOptString(f, fpath+".id")
		case "name":
			part.ToolName, err = geminiOptString(f, fpath+".name")
		case "response":
			switch {
			case f.Type == gjson.Null:
			case !f.IsObject():
				err = wrongType(fpath+".response", "object", f)
			default:
				response = f
			}
		case "parts":
			if f.Type != gjson.Null {
				err = unsupportedField(fpath+".parts", "multimodal function responses are not supported yet")
			}
		case "willContinue", "will_continue", "scheduling":
			// Non-blocking function calls belong to the Live API.
			if f.Type != gjson.Null && f.Type != gjson.False && !(f.Type == gjson.String && f.Str == "SCHEDULING_UNSPECIFIED") {
				err = unsupportedField(fpath+"."+k.Str, "non-blocking function responses are not supported")
			}
		default:
			err = unknownField(fpath + "." + k.Str)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return part, err
	case part.ToolName == "":
		return part, invalid(fpath+".name", "is required")
	case !response.Exists():
		return part, invalid(fpath+".response", "is required")
	}
	text, isErr := geminiResultContent(response, a)
	part.IsError = isErr
	part.Content = []Part{{Type: PartText, Text: text}}
	return part, nil
}

// geminiResultContent returns the text of a functionResponse.response
// object: the string of its only member when that is "output", or "error"
// (isErr true), as the encoders write them; otherwise the object's JSON
// text, which other protocols carry as the result's text.
func geminiResultContent(response gjson.Result, a *jsonx.Arena) (text string, isErr bool) {
	n := 0
	var key string
	var value gjson.Result
	jsonx.EachMember(response, a, func(k, f gjson.Result) bool {
		n++
		key, value = k.Str, f
		return n < 2
	})
	if n == 1 && value.Type == gjson.String && (key == "output" || key == "error") {
		return value.Str, key == "error"
	}
	return response.Raw, false
}

// resolveGeminiToolResults checks where calls and results stand and gives
// every result the id of the call it answers. A functionCall must be in a
// model turn and a functionResponse in a user turn. A response with an id
// answers the unanswered call of the preceding model turn with that id; one
// without answers the first unanswered call of that turn with its name, so
// several calls of one function are answered in order. A response that
// answers no call (none left with its id or name, or no model turn before
// it) is an orphan and is rejected, as Gemini itself would.
func resolveGeminiToolResults(req *Request) *Error {
	type call struct {
		id, name string
		answered bool
	}
	var calls []call // those of the preceding model turn
	prev := RoleUser
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == RoleAssistant && prev != RoleAssistant {
			calls = calls[:0]
		}
		prev = m.Role
		for j := range m.Parts {
			p := &m.Parts[j]
			switch p.Type {
			case PartToolCall:
				if m.Role != RoleAssistant {
					return invalid(geminiContentPath{key: "contents", index: i}.part(j)+".functionCall", `must be in a "model" turn`)
				}
				calls = append(calls, call{id: p.ToolCallID, name: p.ToolName})
			case PartToolResult:
				path := geminiContentPath{key: "contents", index: i}.part(j) + ".functionResponse"
				if m.Role != RoleUser {
					return invalid(path, `must be in a "user" turn`)
				}
				k := -1
				for c := range calls {
					if calls[c].answered {
						continue
					}
					if (p.ToolCallID != "" && calls[c].id == p.ToolCallID) || (p.ToolCallID == "" && calls[c].name == p.ToolName) {
						k = c
						break
					}
				}
				if k >= 0 && calls[k].name != p.ToolName {
					return invalid(path+".name", `is "`+p.ToolName+`", but the functionCall with id "`+p.ToolCallID+`" calls "`+calls[k].name+`"`)
				}
				if k < 0 {
					if p.ToolCallID != "" {
						return invalid(path+".id", `answers no unanswered functionCall with id "`+p.ToolCallID+`" in the preceding model turn`)
					}
					return invalid(path, `answers no unanswered functionCall named "`+p.ToolName+`" in the preceding model turn`)
				}
				calls[k].answered = true
				p.ToolCallID = calls[k].id
			}
		}
	}
	return nil
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
	var f geminiFormat
	var err *Error
	jsonx.EachMember(v, &req.text, func(k, v gjson.Result) bool {
		err = decodeGeminiGenerationField(k.Str, v, key, req, &f)
		return err == nil
	})
	if err != nil {
		return err
	}
	return f.resolve(key, req)
}

// geminiFormat collects the structured output fields of generationConfig,
// which can only be judged together: responseMimeType and one of
// responseJsonSchema (JSON Schema) and responseSchema (the legacy OpenAPI
// subset), each with the key the client spelled it with.
type geminiFormat struct {
	mime, mimeKey     string
	schema            gjson.Result
	schemaKey         string
	legacy, legacyKey string
	legacyValue       gjson.Result
}

// resolve sets req.Format: application/json is a JSON object, or JSON that
// follows the schema when one is given; text/plain (or none) is plain text,
// where a schema is an error, as Gemini makes it; other media types
// (text/x.enum, ...) have no equivalent elsewhere. key is the spelling of
// generationConfig.
func (f *geminiFormat) resolve(key string, req *Request) *Error {
	hasSchema := f.schema.Exists() && f.schema.Type != gjson.Null
	hasLegacy := f.legacyValue.Exists() && f.legacyValue.Type != gjson.Null
	switch {
	case hasSchema && hasLegacy:
		return invalid(key+"."+f.schemaKey, "responseSchema and responseJsonSchema must not both be set")
	case f.mime != "" && f.mime != "text/plain" && f.mime != "application/json":
		return unsupportedField(key+"."+f.mimeKey, `only "text/plain" and "application/json" output is supported`)
	case f.mime != "application/json":
		switch {
		case hasSchema:
			return invalid(key+"."+f.schemaKey, `requires responseMimeType "application/json"`)
		case hasLegacy:
			return invalid(key+"."+f.legacyKey, `requires responseMimeType "application/json"`)
		}
		req.Format = OutputFormat{}
		return nil
	case hasSchema:
		if !f.schema.IsObject() {
			return wrongType(key+"."+f.schemaKey, "object", f.schema)
		}
		req.Format = OutputFormat{Kind: FormatJSONSchema, Schema: f.schema.Raw}
	case hasLegacy:
		if !f.legacyValue.IsObject() {
			return wrongType(key+"."+f.legacyKey, "object", f.legacyValue)
		}
		b, err := appendGeminiJSONSchema(nil, f.legacyValue, key+"."+f.legacyKey, req)
		if err != nil {
			return err
		}
		req.Format = OutputFormat{Kind: FormatJSONSchema, Schema: jsonx.BytesToString(b)}
	default:
		req.Format = OutputFormat{Kind: FormatJSONObject}
	}
	return nil
}

// decodeGeminiGenerationField decodes one field of generationConfig; key is
// the spelling of generationConfig. Errors are built with paths relative to
// the field and completed here, so that no path is built on success.
func decodeGeminiGenerationField(name string, f gjson.Result, key string, req *Request, format *geminiFormat) *Error {
	err := decodeGeminiGenerationValue(name, f, key, req, format)
	if err != nil {
		err.Param = key + "." + name + err.Param
	}
	return err
}

// decodeGeminiGenerationValue decodes the value of generationConfig.name;
// the Param of an error it returns is relative to the field ("" or "[i]").
// Structured output fields are collected in format.
func decodeGeminiGenerationValue(name string, f gjson.Result, key string, req *Request, format *geminiFormat) *Error {
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
		switch f.Type {
		case gjson.Null:
			format.mime, format.mimeKey = "", name
		case gjson.String:
			format.mime, format.mimeKey = f.Str, name
		default:
			return wrongType("", "string", f)
		}
	case "responseJsonSchema", "response_json_schema":
		format.schema, format.schemaKey = f, name
	case "responseSchema", "response_schema":
		format.legacyValue, format.legacyKey = f, name
	case "thinkingConfig", "thinking_config":
		return decodeGeminiThinkingConfig(f, req)
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
	case "speechConfig", "speech_config", "imageConfig", "image_config":
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
	}
	return "image output is not supported yet"
}

// geminiThinkingLevels maps thinkingLevel values (the enum names, and the
// lower-case spelling Google's documentation uses) to efforts.
var geminiThinkingLevels = map[string]mapping.Effort{
	"MINIMAL": mapping.EffortMinimal, "LOW": mapping.EffortLow, "MEDIUM": mapping.EffortMedium, "HIGH": mapping.EffortHigh,
	"minimal": mapping.EffortMinimal, "low": mapping.EffortLow, "medium": mapping.EffortMedium, "high": mapping.EffortHigh,
}

// decodeGeminiThinkingConfig decodes generationConfig.thinkingConfig into
// req.Reasoning: thinkingBudget is a token budget (0 disables thinking, -1
// lets the model decide: Adaptive), thinkingLevel an effort (Gemini 3),
// includeThoughts whether thought summaries are returned. Budget and level
// are alternatives, as Gemini itself rejects both. Error paths are relative
// to thinkingConfig.
func decodeGeminiThinkingConfig(v gjson.Result, req *Request) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wrongType("", "object", v)
	}
	r := &req.Reasoning
	var budget OptInt
	var budgetKey, levelKey string
	var err *Error
	jsonx.EachMember(v, &req.text, func(k, f gjson.Result) bool {
		switch k.Str {
		case "thinkingBudget", "thinking_budget":
			budget, budgetKey = OptInt{}, k.Str
			if err = readInt(f, "."+k.Str, &budget); err == nil && budget.Set && budget.Value < -1 {
				err = invalid("."+k.Str, "must be -1 (dynamic), 0 (off) or a positive token budget")
			}
		case "includeThoughts", "include_thoughts":
			r.IncludeThoughts = OptBool{}
			err = readOptBool(f, "."+k.Str, &r.IncludeThoughts)
		case "thinkingLevel", "thinking_level":
			r.Effort, levelKey = mapping.EffortUnset, k.Str
			switch {
			case f.Type == gjson.Null || f.Type == gjson.String && (f.Str == "" || f.Str == "THINKING_LEVEL_UNSPECIFIED"):
				levelKey = ""
			case f.Type != gjson.String:
				err = wrongType("."+k.Str, "string", f)
			default:
				e, ok := geminiThinkingLevels[f.Str]
				if !ok {
					err = invalid("."+k.Str, `must be "minimal", "low", "medium" or "high"`)
				}
				r.Effort = e
			}
		default:
			err = unknownField("." + k.Str)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return err
	case budget.Set && levelKey != "":
		return invalid("."+budgetKey, "thinkingBudget and thinkingLevel must not both be set")
	case budget.Set && budget.Value == -1:
		r.Adaptive, r.Budget = true, OptInt{}
	default:
		r.Adaptive, r.Budget = false, budget
	}
	return nil
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
// Gemini does not require an output limit. opts gives the thinking budgets
// that stand for reasoning efforts and what the target model takes
// (opts.Target); vertex reports that the body is for Vertex AI rather than
// the Gemini API.
//
// Gemini has a single system instruction at the top level, so req.System
// and every system or developer message later in the conversation are
// hoisted into systemInstruction, in order. The remaining turns must
// alternate between user and model, so consecutive turns of the same role
// are merged into one Content with their parts concatenated.
func appendGeminiRequest(dst []byte, req *Request, opts *EncodeOptions, vertex bool) ([]byte, *Error) {
	start := len(dst)
	dst = append(dst, `{"contents":[`...)
	dst, n, err := appendGeminiContents(dst, req, opts, vertex)
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
	if dst, err = appendGeminiTools(dst, req); err != nil {
		return dst[:start], err
	}
	if dst, err = appendGeminiGenerationConfig(dst, req, opts); err != nil {
		return dst[:start], err
	}
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
// same role merges them. Tool calls become functionCall parts of model
// turns and tool results functionResponse parts of user turns.
//
// A part Gemini sent that llmbridge does not translate (an opaquePart of
// FamilyGemini, see geminiKeepsPart) goes back whole, in place, as a part
// of the model turn. Other reasoning parts are sent only as what Gemini
// accepts back: the signature of a reasoning part Gemini signed
// (signedFor) goes as thoughtSignature on the next part of the same
// assistant message, or on an empty text part of its own when there is
// none or that part carries a signature already.
// Reasoning text is never sent (Gemini takes its thoughts back only through
// the signature), and unsigned or foreign reasoning is left out; both are
// listed in req.Dropped.
//
// Toward a model that requires signed function calls
// (opts.Target.SignedFunctionCalls), the first functionCall part of each
// model Content that has no Gemini signature of its own gets
// SkipThoughtSignature. A model Content is one step of the model: Gemini signs
// only the first call of parallel calls, so later calls of the step need
// none. Every model Content is treated so, not only those of the current
// turn, where Gemini checks: older ones do not need it, but take it without
// harm. Toward Vertex AI (vertex) calls and results are written without
// their ids, which Vertex rejects; it matches them by name and order, as
// the Gemini API does for calls without ids.
func appendGeminiContents(dst []byte, req *Request, opts *EncodeOptions, vertex bool) ([]byte, int, *Error) {
	w := geminiContentWriter{dst: dst, ids: !vertex, signCalls: opts.Target.SignedFunctionCalls}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == RoleSystem || m.Role == RoleDeveloper {
			continue
		}
		role := geminiRole(m.Role)
		pending := "" // a signature waiting for the next part
		for j := range m.Parts {
			p := &m.Parts[j]
			switch p.Type {
			case PartReasoning:
				if m.Role == RoleAssistant && isOpaque(p, mapping.FamilyGemini) && jsonx.Valid(p.Signature) {
					// A part llmbridge does not translate, back where
					// it was, after the signature waiting for a part.
					w.open(role)
					if pending != "" {
						w.dst = appendGeminiSignedEmpty(w.dst, pending)
						w.dst = append(w.dst, ',')
						pending = ""
					}
					w.dst = append(w.dst, p.Signature...)
					continue
				}
				if m.Role != RoleAssistant || !signedFor(p, Gemini) {
					req.Dropped = append(req.Dropped, geminiMessagePartPath(i, j)+" (reasoning)")
					continue
				}
				if p.Text != "" {
					req.Dropped = append(req.Dropped, geminiMessagePartPath(i, j)+" (reasoning text)")
				}
				if pending != "" {
					w.open(role)
					w.dst = appendGeminiSignedEmpty(w.dst, pending)
				}
				pending = p.Signature
				continue
			case PartText, PartRefusal:
				if p.Text == "" {
					continue
				}
			case PartToolCall:
				if m.Role != RoleAssistant {
					return w.dst, w.n, cannotEncode(Gemini, geminiMessagePartPath(i, j), "a tool call outside an assistant message")
				}
			case PartToolResult:
				if m.Role != RoleUser {
					return w.dst, w.n, cannotEncode(Gemini, geminiMessagePartPath(i, j), "a tool result outside a user message")
				}
			case PartImage, PartDocument, PartAudio:
			default:
				return w.dst, w.n, cannotEncode(Gemini, geminiMessagePartPath(i, j), "this content part type")
			}
			w.open(role)
			var err *Error
			switch p.Type {
			case PartToolCall:
				w.dst, err = appendGeminiFunctionCall(w.dst, p, geminiMessagePartPath(i, j), w.ids)
				if err == nil && pending == "" && w.signCalls && !w.called {
					w.dst = appendGeminiSignatureField(w.dst, SkipThoughtSignature)
				}
				w.called = true
			case PartToolResult:
				w.dst, err = appendGeminiFunctionResponse(w.dst, req, i, j, w.ids)
			case PartImage, PartDocument, PartAudio:
				w.dst, err = appendGeminiMedia(w.dst, p, geminiMessagePartPath(i, j))
			default:
				w.dst = append(w.dst, `{"text":`...)
				w.dst = appendText(w.dst, p.Text, p)
				w.dst = append(w.dst, '}')
			}
			if err != nil {
				return w.dst, w.n, err
			}
			if pending != "" {
				w.dst = appendGeminiSignatureField(w.dst, pending)
				pending = ""
			}
		}
		if pending != "" {
			w.open(role)
			w.dst = appendGeminiSignedEmpty(w.dst, pending)
		}
	}
	if w.isOpen {
		w.dst = append(w.dst, `]}`...)
	}
	return w.dst, w.n, nil
}

// geminiContentWriter writes the contents array, opening a Content when the
// role changes and merging consecutive parts of one role into one Content.
type geminiContentWriter struct {
	dst []byte
	// n counts the Contents written.
	n int
	// isOpen reports that a Content of role openRole is open.
	isOpen   bool
	openRole string
	// ids reports that functionCall and functionResponse parts carry the
	// ids of the calls (not toward Vertex AI).
	ids bool
	// signCalls reports that the first functionCall part of each model
	// Content must carry a thoughtSignature (Target.SignedFunctionCalls).
	signCalls bool
	// called reports that the open Content has a functionCall part.
	called bool
}

// open prepares for a part of role: a comma in the open Content of that
// role, else a new Content.
func (w *geminiContentWriter) open(role string) {
	if w.isOpen && role == w.openRole {
		w.dst = append(w.dst, ',')
		return
	}
	if w.isOpen {
		w.dst = append(w.dst, `]},`...)
	}
	w.dst = append(w.dst, `{"role":"`...)
	w.dst = append(w.dst, role...)
	w.dst = append(w.dst, `","parts":[`...)
	w.isOpen, w.openRole, w.called = true, role, false
	w.n++
}

// SkipThoughtSignature is the thoughtSignature Google documents for a
// function call that no Gemini model signed (a history written by another
// model, or calls the client added itself): Gemini 3 then skips the check
// that the first call of each step is signed.
const SkipThoughtSignature = "skip_thought_signature_validator"

// appendGeminiSignatureField adds "thoughtSignature": sig to the part
// object that dst ends with.
func appendGeminiSignatureField(dst []byte, sig string) []byte {
	dst = append(dst[:len(dst)-1], `,"thoughtSignature":`...)
	dst = jsonx.AppendString(dst, sig)
	return append(dst, '}')
}

// appendGeminiSignedEmpty appends an empty text part that carries only
// sig, the form Gemini itself uses for a signature with no part to sit on.
func appendGeminiSignedEmpty(dst []byte, sig string) []byte {
	dst = append(dst, `{"text":"","thoughtSignature":`...)
	dst = jsonx.AppendString(dst, sig)
	return append(dst, '}')
}

// appendGeminiMedia appends an image, document or audio part as
// inlineData {mimeType, data}. llmbridge never fetches a URL, so a URL part
// is rejected for both the Gemini API (which takes no http URLs) and Vertex
// (whose fileData takes https and gs URIs, which the encoder does not write
// yet).
func appendGeminiMedia(dst []byte, p *Part, path string) ([]byte, *Error) {
	switch {
	case p.Data == "":
		return dst, cannotEncode(Gemini, path, "a "+p.Type.String()+" given by URL")
	case p.MediaType == "":
		return dst, invalid(path, "the media type of the "+p.Type.String()+" is required")
	}
	dst = append(dst, `{"inlineData":{"mimeType":`...)
	dst = jsonx.AppendString(dst, p.MediaType)
	dst = append(dst, `,"data":`...)
	dst = jsonx.AppendString(dst, p.Data)
	return append(dst, `}}`...), nil
}

// geminiMessagePartPath is the path of part j of message i, for errors.
func geminiMessagePartPath(i, j int) string {
	return indexPath(indexPath("messages", i)+".content", j)
}

// geminiIsObject reports whether s is the text of one JSON object.
func geminiIsObject(s string) bool {
	i := jsonx.SkipSpace(s, 0)
	return i < len(s) && s[i] == '{' && jsonx.Valid(s)
}

// appendGeminiFunctionCall appends a tool call as a functionCall part: its
// id when it has one and ids is true (Gemini echoes it in the
// functionResponse; Vertex AI takes none), its name and its arguments object
// ({} when there are none). path names the part for errors.
func appendGeminiFunctionCall(dst []byte, p *Part, path string, ids bool) ([]byte, *Error) {
	dst = append(dst, `{"functionCall":{`...)
	if ids && p.ToolCallID != "" {
		dst = append(dst, `"id":`...)
		dst = jsonx.AppendString(dst, p.ToolCallID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = jsonx.AppendString(dst, callWireName(p))
	dst = append(dst, `,"args":`...)
	switch {
	case p.Arguments == "":
		dst = append(dst, "{}"...)
	case geminiIsObject(p.Arguments):
		dst = append(dst, p.Arguments...)
	default:
		return dst, invalid(path+".arguments", "must be a JSON object")
	}
	return append(dst, `}}`...), nil
}

// appendGeminiFunctionResponse appends the tool result at part j of message
// i as a functionResponse. Gemini needs the function's name: ToolName, else
// the name of the call with the result's id earlier in the conversation.
// The result's text becomes {"output": text}, or {"error": text} for an
// error, as functionResponse.response must be an object; several text
// parts are joined with newlines. The result's id is written when ids is
// true, as for calls.
func appendGeminiFunctionResponse(dst []byte, req *Request, i, j int, ids bool) ([]byte, *Error) {
	p := &req.Messages[i].Parts[j]
	name := callWireName(p)
	if name == "" {
		name = geminiCallName(req, i, p.ToolCallID)
		if name == "" {
			return dst, invalid(geminiMessagePartPath(i, j), `tool result for unknown call id "`+p.ToolCallID+`"`)
		}
	}
	dst = append(dst, `{"functionResponse":{`...)
	if ids && p.ToolCallID != "" {
		dst = append(dst, `"id":`...)
		dst = jsonx.AppendString(dst, p.ToolCallID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = jsonx.AppendString(dst, name)
	if p.IsError {
		dst = append(dst, `,"response":{"error":`...)
	} else {
		dst = append(dst, `,"response":{"output":`...)
	}
	text, err := geminiResultText(p.Content, geminiMessagePartPath(i, j))
	if err != nil {
		return dst, err
	}
	if len(p.Content) == 1 {
		dst = appendText(dst, text, &p.Content[0])
	} else {
		dst = jsonx.AppendString(dst, text)
	}
	return append(dst, `}}}`...), nil
}

// geminiResultText joins the text parts of a tool result's content with
// newlines; path names the result for errors.
func geminiResultText(content []Part, path string) (string, *Error) {
	if len(content) == 1 && content[0].Type == PartText {
		return content[0].Text, nil
	}
	var b strings.Builder
	for k := range content {
		if content[k].Type != PartText {
			return "", cannotEncode(Gemini, indexPath(path+".content", k), "this tool result content type")
		}
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(content[k].Text)
	}
	return b.String(), nil
}

// geminiCallName returns the name of the tool call with id in messages
// before and at i, or "".
func geminiCallName(req *Request, i int, id string) string {
	if id == "" {
		return ""
	}
	for ; i >= 0; i-- {
		parts := req.Messages[i].Parts
		for j := range parts {
			if parts[j].Type == PartToolCall && parts[j].ToolCallID == id {
				return callWireName(&parts[j])
			}
		}
	}
	return ""
}

// appendGeminiTools appends tools, one Tool holding a functionDeclaration
// per function with its JSON Schema as parametersJsonSchema (which takes
// full JSON Schema, so nothing is down-converted), and toolConfig for the
// tool choice. Gemini cannot enforce a schema strictly (strict: true is
// rejected) and has no switch for parallel calls, which is dropped as a
// hint.
func appendGeminiTools(dst []byte, req *Request) ([]byte, *Error) {
	if req.ParallelToolCalls.Set {
		req.Dropped = append(req.Dropped, "parallel_tool_calls")
	}
	if len(req.Tools) == 0 {
		return dst, nil
	}
	if err := checkFlatNames(Gemini, req); err != nil {
		return dst, err
	}
	dst = append(dst, `,"tools":[`...)
	search, n := false, 0
	for i := range req.Tools {
		t := &req.Tools[i]
		switch {
		case t.Kind == ToolWebSearch:
			if err := checkWebSearchFor(Gemini, t, i, webSearchCaps{}); err != nil {
				return dst, err
			}
			search = true
			continue
		case t.Kind == ToolCustom:
			if err := checkCustomFor(Gemini, t, i); err != nil {
				return dst, err
			}
		case t.Kind != ToolFunction:
			return dst, cannotEncode(Gemini, indexPath("tools", i), "a hosted tool")
		case t.Strict.Set && t.Strict.Value:
			return dst, cannotEncode(Gemini, indexPath("tools", i)+".strict", "strict: true (schema enforcement)")
		case t.Parameters != "" && !geminiIsObject(t.Parameters):
			return dst, invalid(indexPath("tools", i)+".parameters", "must be a JSON object")
		}
		if n == 0 {
			dst = append(dst, `{"functionDeclarations":[`...)
		} else {
			dst = append(dst, ',')
		}
		n++
		name, desc, params := functionView(t)
		dst = append(dst, `{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		if params != "" {
			dst = append(dst, `,"parametersJsonSchema":`...)
			dst = append(dst, params...)
		}
		dst = append(dst, '}')
	}
	if n > 0 {
		dst = append(dst, `]}`...)
	}
	if search {
		// The hosted search is a Tool of its own; it takes no options
		// (checkWebSearchFor rejected any that were set).
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"googleSearch":{}}`...)
	}
	dst = append(dst, ']')
	if n == 0 {
		// Only the search: the function calling configuration has no
		// function to govern.
		return dst, nil
	}
	var mode string
	switch req.ToolChoice.Mode {
	case ToolChoiceUnset:
		return dst, nil
	case ToolChoiceAuto:
		mode = "AUTO"
	case ToolChoiceNone:
		mode = "NONE"
	default: // required and named
		mode = "ANY"
	}
	dst = append(dst, `,"toolConfig":{"functionCallingConfig":{"mode":"`...)
	dst = append(dst, mode...)
	dst = append(dst, '"')
	if req.ToolChoice.Mode == ToolChoiceNamed {
		dst = append(dst, `,"allowedFunctionNames":[`...)
		dst = jsonx.AppendString(dst, req.ToolChoice.wireName())
		dst = append(dst, ']')
	}
	return append(dst, `}}`...), nil
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
		dst = appendText(dst, text, &parts[j])
		dst = append(dst, '}')
	}
	return dst, written, nil
}

// appendGeminiGenerationConfig appends generationConfig with the sampling,
// thinking and output format parameters that are set, and nothing when none
// is. Verbosity is OpenAI's alone and is rejected.
func appendGeminiGenerationConfig(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	if req.Verbosity != "" {
		return dst, cannotEncode(Gemini, "verbosity", "output verbosity")
	}
	start := len(dst)
	dst = append(dst, `,"generationConfig":{`...)
	empty := len(dst)
	if req.MaxTokens.Set {
		dst = appendGeminiKey(dst, empty, "maxOutputTokens")
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	if req.Temperature.Set {
		dst = appendGeminiKey(dst, empty, "temperature")
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = appendGeminiKey(dst, empty, "topP")
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.TopK.Set {
		dst = appendGeminiKey(dst, empty, "topK")
		dst = jsonx.AppendInt(dst, req.TopK.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = appendGeminiKey(dst, empty, "stopSequences")
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	if req.Seed.Set {
		dst = appendGeminiKey(dst, empty, "seed")
		dst = jsonx.AppendInt(dst, req.Seed.Value)
	}
	if req.PresencePenalty.Set {
		dst = appendGeminiKey(dst, empty, "presencePenalty")
		dst = jsonx.AppendFloat(dst, req.PresencePenalty.Value)
	}
	if req.FrequencyPenalty.Set {
		dst = appendGeminiKey(dst, empty, "frequencyPenalty")
		dst = jsonx.AppendFloat(dst, req.FrequencyPenalty.Value)
	}
	var err *Error
	if dst, err = appendGeminiFormat(dst, empty, req); err != nil {
		return dst, err
	}
	dst = appendGeminiThinking(dst, empty, &req.Reasoning, opts)
	if len(dst) == empty {
		return dst[:start], nil
	}
	return append(dst, '}'), nil
}

// appendGeminiFormat appends the structured output fields of
// generationConfig: responseMimeType application/json for JSON, with the
// schema as responseJsonSchema (which takes JSON Schema as it is). Gemini
// always constrains output to the schema, so Strict needs nothing; a schema
// has no name there, and its description no slot, which is listed as
// dropped.
func appendGeminiFormat(dst []byte, empty int, req *Request) ([]byte, *Error) {
	f := &req.Format
	if f.Kind == FormatText {
		return dst, nil
	}
	if f.Kind == FormatJSONSchema && f.Schema != "" && !geminiIsObject(f.Schema) {
		return dst, invalid("format.schema", "must be a JSON object")
	}
	dst = appendGeminiKey(dst, empty, "responseMimeType")
	dst = append(dst, `"application/json"`...)
	if f.Kind == FormatJSONSchema && f.Schema != "" {
		dst = appendGeminiKey(dst, empty, "responseJsonSchema")
		dst = append(dst, f.Schema...)
	}
	if f.Description != "" {
		req.Dropped = append(req.Dropped, "format.description")
	}
	return dst, nil
}

// appendGeminiThinking appends thinkingConfig for the requested reasoning
// (nothing when nothing was asked for). An explicit effort none
// is thinkingBudget 0; a budget is sent as it is; adaptive thinking is
// Gemini's dynamic budget -1; another effort is its budget from
// opts.EffortBudgets. Thought summaries are asked for (includeThoughts)
// whenever thinking is, unless the client said otherwise: Gemini's own
// includeThoughts, or Anthropic's display "omitted". A Responses summary
// setting alone injects nothing, as it asks for no reasoning by itself.
// Toward a model that takes thinking levels (opts.Target.ThinkingLevel),
// appendGeminiThinkingLevel writes the configuration instead.
func appendGeminiThinking(dst []byte, empty int, r *Reasoning, opts *EncodeOptions) []byte {
	if opts.Target.ThinkingLevel {
		return appendGeminiThinkingLevel(dst, empty, r, opts)
	}
	budget, hasBudget := int64(0), true
	switch {
	case r.Effort == mapping.EffortNone:
	case r.Budget.Set:
		budget = r.Budget.Value
	case r.Adaptive:
		budget = -1
	case r.Effort != mapping.EffortUnset:
		budget = opts.EffortBudgets.Budget(r.Effort)
	default:
		hasBudget = false
	}
	include := r.IncludeThoughts
	switch {
	case include.Set:
	case r.Display == "omitted":
		include = OptBool{Value: false, Set: hasBudget && budget != 0}
	case hasBudget && budget != 0:
		include = OptBool{Value: true, Set: true}
	}
	if !hasBudget && !include.Set {
		return dst
	}
	dst = appendGeminiKey(dst, empty, "thinkingConfig")
	dst = append(dst, '{')
	if hasBudget {
		dst = append(dst, `"thinkingBudget":`...)
		dst = jsonx.AppendInt(dst, budget)
	}
	if include.Set {
		if hasBudget {
			dst = append(dst, ',')
		}
		dst = append(dst, `"includeThoughts":`...)
		dst = strconv.AppendBool(dst, include.Value)
	}
	return append(dst, '}')
}

// appendGeminiThinkingLevel appends thinkingConfig toward a model that takes
// thinkingLevel (Gemini 3), which is never given a thinkingBudget: the two
// together are rejected. The request's effort is written as its level, or
// else the effort its budget stands for in opts.EffortBudgets (as toward
// Chat, whose reasoning_effort is a level too); efforts above high are
// high, the largest level. Adaptive thinking and Gemini's dynamic budget -1
// write no level, which leaves the model's own dynamic default. Thinking off
// (effort none, budget 0) writes no level either, as not every such model
// can stop thinking: which level, if any, the model is asked for instead is
// decided before the request is encoded. Thought summaries are then not
// asked for (includeThoughts false); otherwise includeThoughts follows the
// rules of appendGeminiThinking.
func appendGeminiThinkingLevel(dst []byte, empty int, r *Reasoning, opts *EncodeOptions) []byte {
	e := r.Effort
	if e == mapping.EffortUnset && r.Budget.Set && !r.Adaptive {
		e = opts.EffortBudgets.Effort(r.Budget.Value)
	}
	dynamic := e == mapping.EffortUnset && (r.Adaptive || r.Budget.Set)
	include := r.IncludeThoughts
	switch {
	case include.Set:
	case e == mapping.EffortNone:
		include = OptBool{Value: false, Set: true}
	case e == mapping.EffortUnset && !dynamic:
	case r.Display == "omitted":
		include = OptBool{Value: false, Set: true}
	default:
		include = OptBool{Value: true, Set: true}
	}
	level := geminiThinkingLevel(e)
	if level == "" && !include.Set {
		return dst
	}
	dst = appendGeminiKey(dst, empty, "thinkingConfig")
	dst = append(dst, '{')
	if level != "" {
		dst = append(dst, `"thinkingLevel":"`...)
		dst = append(dst, level...)
		dst = append(dst, '"')
	}
	if include.Set {
		if level != "" {
			dst = append(dst, ',')
		}
		dst = append(dst, `"includeThoughts":`...)
		dst = strconv.AppendBool(dst, include.Value)
	}
	return append(dst, '}')
}

// geminiThinkingLevel returns the thinkingLevel of a non-zero effort, in
// the lower-case spelling of Google's documentation: xhigh and max are high,
// the largest level. It returns "" for EffortUnset and EffortNone.
func geminiThinkingLevel(e mapping.Effort) string {
	switch e {
	case mapping.EffortMinimal, mapping.EffortLow, mapping.EffortMedium, mapping.EffortHigh:
		return e.String()
	case mapping.EffortXHigh, mapping.EffortMax:
		return mapping.EffortHigh.String()
	}
	return ""
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
	var block StopDetails
	var err *Error
	jsonx.EachMember(root, &resp.text, func(k, v gjson.Result) bool {
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
			jsonx.EachMember(v, &resp.text, func(_, c gjson.Result) bool {
				candidate = c
				return false
			})
		case "promptFeedback":
			block, err = decodeGeminiBlockReason(Gemini, v)
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
	if block.Category != "" {
		// The prompt itself was blocked: no candidate was generated.
		resp.StopReason = mapping.StopContentFilter
		resp.StopDetails = block
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

// decodeGeminiBlockReason reads promptFeedback of an upstream of protocol
// p: blockReason, which says that the prompt was blocked, becomes the
// Category and Vertex's blockReasonMessage the Explanation. Category is ""
// when the prompt was not blocked.
func decodeGeminiBlockReason(p Protocol, v gjson.Result) (StopDetails, *Error) {
	var d StopDetails
	if v.Type == gjson.Null {
		return d, nil
	}
	if !v.IsObject() {
		return d, badUpstream(p, "promptFeedback is not an object")
	}
	var err *Error
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "blockReason":
			d.Category, err = geminiUpstreamString(p, f, "promptFeedback.blockReason")
		case "blockReasonMessage":
			d.Explanation, err = geminiUpstreamString(p, f, "promptFeedback.blockReasonMessage")
		}
		return err == nil
	})
	if d.Category == "" {
		d.Explanation = ""
	}
	return d, err
}

// geminiUpstreamString reads an optional string field of a response of
// protocol p; null is "".
func geminiUpstreamString(p Protocol, v gjson.Result, name string) (string, *Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", badUpstream(p, name+" is not a string")
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
	var reason, message string
	var err *Error
	var grounding gjson.Result
	var textAt []int // the resp.Content index of each Gemini part's text, or -1
	jsonx.EachMember(c, &resp.text, func(k, v gjson.Result) bool {
		switch k.Str {
		case "groundingMetadata":
			grounding = v
		case "content":
			textAt, err = decodeGeminiResponseContent(v, resp)
		case "finishReason":
			reason, err = geminiResponseString(v, "candidates[0].finishReason")
			resp.StopReason = mapping.FromGeminiFinishReason(reason)
		case "finishMessage":
			message, err = geminiResponseString(v, "candidates[0].finishMessage")
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if grounding.IsObject() {
		resp.Content = decodeGeminiGrounding(grounding, resp.Content, textAt)
	}
	resp.StopDetails = geminiFilterDetails(resp.StopReason, reason, message)
	if resp.StopReason == mapping.StopEnd && geminiCallCount(resp.Content) > 0 {
		// Gemini ends a turn with function calls with STOP.
		resp.StopReason = mapping.StopToolUse
	}
	return nil
}

// geminiFilterDetails returns the StopDetails of a candidate that finished
// with reason (stop in canonical form) and finishMessage message: for a
// filter stop, the reason (SAFETY, RECITATION, MODEL_ARMOR, ...) is the
// Category and the message, when there is one, the Explanation. Other
// stops have none: their finishMessage ("Model generated function
// call(s).") explains nothing a client needs.
func geminiFilterDetails(stop StopReason, reason, message string) StopDetails {
	if stop != mapping.StopContentFilter {
		return StopDetails{}
	}
	return StopDetails{Category: reason, Explanation: message}
}

// decodeGeminiResponseContent decodes candidates[0].content.parts, and
// returns where the text of each part went in resp.Content (-1 for parts
// that are not text), for grounding supports that point at parts.
func decodeGeminiResponseContent(v gjson.Result, resp *Response) ([]int, *Error) {
	if v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsObject() {
		return nil, badUpstream(Gemini, "candidates[0].content is not an object")
	}
	parts := v.Get("parts")
	if parts.Type == gjson.Null || !parts.Exists() {
		return nil, nil
	}
	if !parts.IsArray() {
		return nil, badUpstream(Gemini, "candidates[0].content.parts is not an array")
	}
	var err *Error
	var textAt []int
	var buf [8]int
	textAt = buf[:0]
	jsonx.EachMember(parts, &resp.text, func(_, p gjson.Result) bool {
		n := len(resp.Content)
		err = decodeGeminiResponsePart(p, len(textAt), resp)
		at := -1
		if k := len(resp.Content) - 1; k >= n && resp.Content[k].Type == PartText {
			at = k
		}
		textAt = append(textAt, at)
		return err == nil
	})
	return textAt, err
}

// decodeGeminiGrounding converts a candidate's groundingMetadata: each of
// webSearchQueries becomes a search call and groundingChunks (their web
// uri and title) one result with the pages, both put before the answer
// (the search came first); each groundingSupport's segment becomes a
// citation of the text part it points at (segment.partIndex, byte
// offsets) for every web chunk it names. Entries that do not fit are
// skipped: grounding never fails a response.
func decodeGeminiGrounding(g gjson.Result, content []Part, textAt []int) []Part {
	var chunks []Source
	g.Get("groundingChunks").ForEach(func(_, c gjson.Result) bool {
		web := c.Get("web")
		chunks = append(chunks, Source{URL: web.Get("uri").Str, Title: web.Get("title").Str})
		return true
	})
	g.Get("groundingSupports").ForEach(func(_, sup gjson.Result) bool {
		seg := sup.Get("segment")
		pi := int(seg.Get("partIndex").Int())
		if pi < 0 || pi >= len(textAt) || textAt[pi] < 0 {
			return true
		}
		p := &content[textAt[pi]]
		start, end := int(seg.Get("startIndex").Int()), int(seg.Get("endIndex").Int())
		sup.Get("groundingChunkIndices").ForEach(func(_, k gjson.Result) bool {
			if i := int(k.Int()); i >= 0 && i < len(chunks) && chunks[i].URL != "" {
				p.Citations = append(p.Citations, Citation{URL: chunks[i].URL, Title: chunks[i].Title, Start: start, End: end})
			}
			return true
		})
		return true
	})
	var lead []Part
	id := ""
	g.Get("webSearchQueries").ForEach(func(_, q gjson.Result) bool {
		id = "gs_" + strconv.Itoa(len(lead))
		lead = append(lead, Part{Type: PartServerToolCall, ToolKind: ToolWebSearch, ToolCallID: id, ToolName: "web_search", Arguments: searchArguments(q.Str)})
		return true
	})
	r := Part{Type: PartServerToolResult, ToolKind: ToolWebSearch, ToolCallID: id}
	for _, c := range chunks {
		if c.URL != "" {
			r.Sources = append(r.Sources, c)
		}
	}
	if len(r.Sources) > 0 {
		lead = append(lead, r)
	}
	if len(lead) == 0 {
		return content
	}
	return append(lead, content...)
}

// decodeGeminiResponsePart appends response part j to resp.Content: its
// text, a thought (thought: true) as reasoning, or its functionCall as a
// tool call. A thoughtSignature signs the reasoning before the part that
// carries it, as in requests (see decodeGeminiParts), with Origin
// FamilyGemini. Empty text is skipped: it carries nothing but, at times, a
// signature (Gemini pads final chunks with {"text":""}). A part whose data
// is of another kind is kept or dropped by geminiKeepsPart, and never fails
// the response.
func decodeGeminiResponsePart(p gjson.Result, j int, resp *Response) *Error {
	if !p.IsObject() {
		return badUpstream(Gemini, "candidates[0].content.parts has an element that is not an object")
	}
	var text, sig, other string
	var call gjson.Result
	hasText, thought := false, false
	var err *Error
	jsonx.EachMember(p, &resp.text, func(k, v gjson.Result) bool {
		switch k.Str {
		case "text":
			text, err = geminiResponseString(v, "part text")
			hasText = true
		case "thought":
			thought = v.Type == gjson.True
		case "functionCall":
			call = v
		case "thoughtSignature":
			sig, err = geminiResponseString(v, "part thoughtSignature")
		case "partMetadata":
		default:
			if other == "" {
				other = k.Str
			}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	isCall := call.Exists() && call.Type != gjson.Null
	if other != "" && !hasText && !isCall {
		if geminiKeepsPart(other, sig != "") {
			resp.Content = append(resp.Content, opaquePart(mapping.FamilyGemini, p.Raw))
		} else {
			resp.Dropped = append(resp.Dropped, geminiResponsePartPath(j)+" ("+other+")")
		}
		return nil
	}
	if thought && !isCall {
		if text != "" || sig != "" {
			resp.Content = append(resp.Content, Part{Type: PartReasoning, Text: text, Signature: sig, Origin: geminiOrigin(sig)})
		}
		return nil
	}
	if sig != "" {
		resp.Content = geminiSignResponse(resp.Content, sig)
	}
	switch {
	case isCall:
		var part Part
		part, err = decodeGeminiCall(Gemini, call, resp.ID, geminiCallCount(resp.Content))
		resp.Content = append(resp.Content, part)
	case text != "":
		resp.Content = append(resp.Content, Part{Type: PartText, Text: text})
	}
	return err
}

// geminiKeepsPart reports whether an upstream part llmbridge does not
// translate is state, kept whole (opaquePart of FamilyGemini) so that it
// goes back in place to a Gemini upstream on the next turn, rather than
// display, dropped from the client's answer and reported. A part's kind is
// its data member: a part whose data is text or a functionCall is
// translated, and its members that are not data (thought,
// thoughtSignature, partMetadata, metadata added later) are read or
// ignored; any other kind is untranslated. The rule:
//
//   - A part with a thoughtSignature is state, whatever its kind: Gemini
//     checks the signed parts of its own turns.
//   - Media the model made (inlineData, fileData) without a signature is
//     display: the client protocols of other families have no slot for
//     model-made media in llmbridge's model, and Gemini does not need it
//     back.
//   - Every other kind is state: executableCode and codeExecutionResult
//     are the model's own server-side tool history, functionResponse is a
//     tool's answer, and a kind added later may be either, so it is kept.
func geminiKeepsPart(kind string, signed bool) bool {
	return signed || kind != "inlineData" && kind != "fileData"
}

// geminiResponsePartPath is the path of part j of a Gemini response, for
// Response.Dropped.
func geminiResponsePartPath(j int) string {
	return indexPath("candidates[0].content.parts", j)
}

// geminiOrigin returns the family of a signature from a Gemini upstream:
// FamilyGemini, or FamilyNone when there is none.
func geminiOrigin(sig string) mapping.Family {
	if sig == "" {
		return mapping.FamilyNone
	}
	return mapping.FamilyGemini
}

// geminiSignResponse applies an upstream's thoughtSignature to the unsigned
// reasoning part that content ends with, or appends an empty reasoning part
// that holds it.
func geminiSignResponse(content []Part, sig string) []Part {
	if n := len(content); n > 0 && content[n-1].Type == PartReasoning && content[n-1].Signature == "" {
		content[n-1].Signature, content[n-1].Origin = sig, mapping.FamilyGemini
		return content
	}
	return append(content, Part{Type: PartReasoning, Signature: sig, Origin: mapping.FamilyGemini})
}

// geminiCallCount returns the number of tool calls in parts.
func geminiCallCount(parts []Part) int {
	n := 0
	for i := range parts {
		if parts[i].Type == PartToolCall {
			n++
		}
	}
	return n
}

// decodeGeminiCall decodes a complete functionCall of a response: its args
// object is copied as raw text ("" when absent). Gemini API calls have no
// id; one is synthesised with geminiCallID from the response id and the
// call's ordinal n among the response's calls.
func decodeGeminiCall(p Protocol, v gjson.Result, responseID string, n int) (Part, *Error) {
	part := Part{Type: PartToolCall}
	if !v.IsObject() {
		return part, badUpstream(p, "functionCall is not an object")
	}
	var err *Error
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "id":
			part.ToolCallID, err = geminiResponseString(f, "functionCall.id")
		case "name":
			part.ToolName, err = geminiResponseString(f, "functionCall.name")
		case "args":
			switch {
			case f.Type == gjson.Null:
			case !f.IsObject():
				err = badUpstream(p, "functionCall.args is not an object")
			default:
				part.Arguments = f.Raw
			}
		case "willContinue", "partialArgs":
			if f.Type != gjson.Null && f.Type != gjson.False {
				err = badUpstream(p, "functionCall with partial arguments outside a stream")
			}
		}
		return err == nil
	})
	if err == nil && part.ToolName == "" {
		err = badUpstream(p, "functionCall has no name")
	}
	if part.ToolCallID == "" {
		part.ToolCallID = geminiCallID(responseID, n)
	}
	return part, err
}

// geminiCallID synthesises the id of the n-th function call (from 0) of
// the response with id responseID, for upstreams that give calls none (the
// Gemini API): "call_<responseId>_<n>", or "call_<n>" without a response id.
// It is deterministic, so the streamed and JSON forms of one response agree,
// and unique across the turns of a conversation, as Anthropic requires of
// tool_use ids; characters other than letters, digits, _ and - are left out
// of the response id, as Anthropic ids allow no others.
func geminiCallID(responseID string, n int) string {
	b := make([]byte, 0, len("call__")+len(responseID)+4)
	b = append(b, "call_"...)
	for i := 0; i < len(responseID); i++ {
		c := responseID[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b = append(b, c)
		}
	}
	if len(b) > len("call_") {
		b = append(b, '_')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return string(b)
}

// appendGeminiResponse appends resp as a GenerateContentResponse, with the
// fields google.golang.org/genai reads. Refusals become plain model text,
// as Gemini has no refusal slot; the stop's explanation, when the upstream
// gave one, is the candidate's finishMessage. usageMetadata is omitted when
// the upstream reported no usage, rather than claiming zero tokens.
//
// Reasoning text becomes thought parts. A reasoning part's opaque value
// goes, as a continuation token (appendGeminiToken), in the
// thoughtSignature of the next part that is not reasoning, or of an empty
// text part of its own when there is none or another signature comes
// first, which is where Gemini itself puts signatures and where the
// request decoder looks for them.
//
// A response blocked by a filter without any content is written as a
// candidate with its finishReason: a prompt block (promptFeedback) cannot
// be told apart from a blocked candidate in canonical form, and a
// candidate is what every client handles.
func appendGeminiResponse(dst []byte, resp *Response) ([]byte, *Error) {
	start := len(dst)
	dst = append(dst, `{"candidates":[{"content":{"role":"model"`...)
	written := false
	nparts := 0 // Gemini parts written
	part := func() {
		nparts++
		if written {
			dst = append(dst, ',')
		} else {
			// Like Google's proto JSON, which omits empty repeated
			// fields, parts is left out when there are none.
			dst = append(dst, `,"parts":[`...)
			written = true
		}
	}
	// pending holds the continuation tokens, space-separated, of the
	// reasoning whose signatures wait for the next part that is not a
	// thought (see appendGeminiToken).
	var pending, tok []byte
	flush := func() {
		part()
		dst = append(dst, `{"text":""`...)
		dst = appendGeminiPendingField(dst, pending)
		dst = append(dst, '}')
		pending = pending[:0]
	}
	var cited []int      // the Gemini part index of each cited text part
	var citedParts []int // and its index in resp.Content
	grounded := false
	for i := range resp.Content {
		p := &resp.Content[i]
		switch p.Type {
		case PartServerToolCall, PartServerToolResult:
			grounded = true
			continue
		case PartText:
			if len(p.Citations) > 0 {
				grounded = true
			}
		}
		if p.Type == PartReasoning {
			if p.Text != "" {
				part()
				dst = append(dst, `{"text":`...)
				dst = jsonx.AppendString(dst, p.Text)
				dst = append(dst, `,"thought":true}`...)
			}
			pending, tok = appendGeminiToken(pending, p.Signature, p.Origin, p.Redacted, p.ItemID, p.Text, tok)
			continue
		}
		text, ok := geminiPartText(*p)
		switch {
		case p.Type == PartToolCall:
		case !ok:
			return dst[:start], geminiCannotCarry()
		case text == "":
			continue
		}
		part()
		if p.Type == PartToolCall {
			var err *Error
			if dst, err = appendGeminiFunctionCall(dst, p, "", true); err != nil {
				return dst[:start], geminiCannotCarry()
			}
		} else {
			if len(p.Citations) > 0 {
				cited, citedParts = append(cited, nparts-1), append(citedParts, i)
			}
			dst = append(dst, `{"text":`...)
			dst = jsonx.AppendString(dst, text)
			dst = append(dst, '}')
		}
		if len(pending) > 0 {
			dst = appendGeminiPendingField(dst[:len(dst)-1], pending)
			dst = append(dst, '}')
			pending = pending[:0]
		}
	}
	if len(pending) > 0 {
		// Reasoning with nothing after it: its signatures need a part of
		// their own.
		flush()
	}
	if written {
		dst = append(dst, ']')
	}
	dst = append(dst, `},"finishReason":`...)
	dst = jsonx.AppendString(dst, mapping.GeminiFinishReason(resp.StopReason))
	if resp.StopDetails.Explanation != "" {
		dst = append(dst, `,"finishMessage":`...)
		dst = jsonx.AppendString(dst, resp.StopDetails.Explanation)
	}
	if grounded {
		dst = appendGeminiGrounding(dst, resp.Content, cited, citedParts)
	}
	dst = append(dst, `,"index":0}]`...)
	if resp.Usage.Known {
		dst = appendGeminiUsage(dst, &resp.Usage)
	}
	if resp.Model != "" {
		dst = append(dst, `,"modelVersion":`...)
		dst = jsonx.AppendString(dst, resp.Model)
	}
	id := resp.ID
	if id == "" {
		// Gemini response ids carry no prefix.
		id = newID("")
	}
	dst = append(dst, `,"responseId":`...)
	dst = jsonx.AppendString(dst, id)
	return append(dst, '}'), nil
}

// appendGeminiGrounding appends a candidate's groundingMetadata: the
// queries of the search calls in content as webSearchQueries, the pages of
// their results and of the citations as groundingChunks (each URL once),
// and each citation as a groundingSupport of the text part it cites (its
// Gemini part index in cited, its content index in citedParts) with byte
// offsets.
func appendGeminiGrounding(dst []byte, content []Part, cited, citedParts []int) []byte {
	dst = append(dst, `,"groundingMetadata":{"webSearchQueries":[`...)
	n := 0
	for i := range content {
		if content[i].Type == PartServerToolCall {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = jsonx.AppendString(dst, searchQuery(content[i].Arguments))
		}
	}
	var urls []string
	var titles []string
	chunk := func(url, title string) int {
		for k, u := range urls {
			if u == url {
				return k
			}
		}
		urls, titles = append(urls, url), append(titles, title)
		return len(urls) - 1
	}
	for i := range content {
		for _, src := range content[i].Sources {
			chunk(src.URL, src.Title)
		}
	}
	dst = append(dst, `],"groundingSupports":[`...)
	n = 0
	for k, ci := range citedParts {
		p := &content[ci]
		for c := range p.Citations {
			s, e := citationSpan(&p.Citations[c], p.Text)
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, `{"segment":{"partIndex":`...)
			dst = jsonx.AppendInt(dst, int64(cited[k]))
			dst = append(dst, `,"startIndex":`...)
			dst = jsonx.AppendInt(dst, int64(s))
			dst = append(dst, `,"endIndex":`...)
			dst = jsonx.AppendInt(dst, int64(e))
			dst = append(dst, `,"text":`...)
			dst = jsonx.AppendString(dst, p.Text[s:e])
			dst = append(dst, `},"groundingChunkIndices":[`...)
			dst = jsonx.AppendInt(dst, int64(chunk(p.Citations[c].URL, p.Citations[c].Title)))
			dst = append(dst, `]}`...)
		}
	}
	dst = append(dst, `],"groundingChunks":[`...)
	for k := range urls {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"web":{"uri":`...)
		dst = jsonx.AppendString(dst, urls[k])
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, titles[k])
		dst = append(dst, `}}`...)
	}
	return append(dst, `]}`...)
}

// appendGeminiToken appends to pending (space-separated) the continuation
// token of a reasoning part's opaque value, for a Gemini client's
// thoughtSignature; pending is unchanged when the part has none. tok is
// scratch space, returned for reuse.
//
// Gemini puts a signature on the part after the thoughts, not on a thought
// part, and Gemini clients keep thought parts out of the history they
// replay (Gemini CLI), while genai's chat history drops parts that carry
// nothing but a signature. So every signature since the last part that is
// not a thought rides on the next such part, several tokens in one
// thoughtSignature when reasoning came in several blocks (Anthropic
// thinking then redacted_thinking). And since an Anthropic signature covers
// its thinking text, which must come back byte for byte, its token carries
// that text too.
func appendGeminiToken(pending []byte, signature string, origin mapping.Family, redacted bool, itemID, text string, tok []byte) ([]byte, []byte) {
	if signature == "" {
		return pending, tok
	}
	c := mapping.Continuation{Origin: origin, Redacted: redacted, ItemID: itemID, Signature: signature}
	if origin == mapping.FamilyAnthropic && !redacted {
		c.Text = text
	}
	tok = mapping.AppendEnvelope(tok[:0], c)
	if len(pending) > 0 {
		pending = append(pending, ' ')
	}
	return append(pending, tok...), tok
}

// appendGeminiPendingField appends `,"thoughtSignature":"<value>"` for the
// pending tokens: their text in standard base64. genai declares
// Part.ThoughtSignature as []byte, which encoding/json reads as standard
// base64 only, and a bare token ("llmbridge.v1." and base64url) is not:
// genai would fail on the whole response. Wrapped, the client's SDK turns
// it into bytes and back into the same text when it replays the history,
// and geminiUnwrapSignature unwraps it.
func appendGeminiPendingField(dst, pending []byte) []byte {
	dst = append(dst, `,"thoughtSignature":"`...)
	n := len(dst)
	dst = append(dst, make([]byte, base64.StdEncoding.EncodedLen(len(pending)))...)
	base64.StdEncoding.Encode(dst[n:], pending)
	return append(dst, '"')
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
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"candidatesTokenCount":`...)
	dst = jsonx.AppendInt(dst, u.GeminiCandidatesTokens())
	dst = append(dst, `,"totalTokenCount":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	if u.CacheReadTokens > 0 {
		dst = append(dst, `,"cachedContentTokenCount":`...)
		dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	}
	if u.ReasoningTokens > 0 {
		dst = append(dst, `,"thoughtsTokenCount":`...)
		dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	}
	return append(dst, '}')
}
