package gemini

import (
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// hostedTools are the keys of Gemini's built-in tools, which run on
// Google's side and are not translated in this round.
var hostedTools = map[string]bool{
	"googleSearch": true, "google_search": true, "googleSearchRetrieval": true, "google_search_retrieval": true,
	"codeExecution": true, "code_execution": true, "urlContext": true, "url_context": true,
	"retrieval": true, "enterpriseWebSearch": true, "enterprise_web_search": true,
	"googleMaps": true, "google_maps": true, "computerUse": true, "computer_use": true,
	"fileSearch": true, "file_search": true, "parallelAiSearch": true, "parallel_ai_search": true,
}

// decodeTools decodes the tools array: each Tool's
// functionDeclarations become function tools; built-in (hosted) tools are
// rejected by name.
func decodeTools(v gjson.Result, key string, req *request) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType(key, "array", v)
	}
	var err *codec.Error
	i := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		t := member.Result()
		err = decodeTool(t, wire.IndexPath(key, i), req)
		i++
		if err != nil {
			break
		}
	}
	return err
}

// decodeTool decodes one Tool at path.
func decodeTool(t gjson.Result, path string, req *request) *codec.Error {
	if !t.IsObject() {
		return wire.WrongType(path, "object", t)
	}
	var err *codec.Error
	for k, member := range jsonx.Members(t.Raw, &req.Text) {
		f := member.Result()
		switch {
		case k == "functionDeclarations" || k == "function_declarations":
			err = decodeFunctionDeclarations(f, path+"."+k, req)
		case k == "googleSearch" || k == "google_search": //field:tools[].googleSearch: capability
			err = decodeSearch(f, path+"."+k, req)
		case hostedTools[k]:
			if f.Type != gjson.Null {
				err = wire.UnsupportedField(path+"."+k, `hosted tool "`+k+`" cannot be translated (only googleSearch is); remove the tool or ask the operator to drop it (field `+path+"."+k+`)`)
			}
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			break
		}
	}
	return err
}

// decodeSearch decodes the googleSearch tool at path: Gemini's hosted
// web search. Its options (timeRangeFilter, excludeDomains on Vertex)
// narrow what is found; excludeDomains is the blocked domain list, a time
// range has no equivalent elsewhere and is rejected.
func decodeSearch(v gjson.Result, path string, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	t := codec.Tool{Kind: codec.ToolWebSearch, Name: "web_search", Source: path}
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		p := path + "." + k
		switch k {
		case "excludeDomains", "exclude_domains":
			t.WebSearch.BlockedDomains, err = wire.ReadStringList(f, p, false, t.WebSearch.BlockedDomains, &req.Text)
		case "timeRangeFilter", "time_range_filter":
			err = wire.RejectUnlessNull(f, p, "a search time range has no equivalent in other protocols")
		default:
			err = wire.UnknownField(p)
		}
		if err != nil {
			break
		}
	}
	req.Tools = append(req.Tools, t)
	return err
}

// decodeFunctionDeclarations appends the declared functions to
// req.Tools.
func decodeFunctionDeclarations(v gjson.Result, path string, req *request) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType(path, "array", v)
	}
	var err *codec.Error
	i := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		err = decodeFunctionDeclaration(f, wire.IndexPath(path, i), req)
		i++
		if err != nil {
			break
		}
	}
	return err
}

// decodeFunctionDeclaration decodes one FunctionDeclaration. Its
// parametersJsonSchema is JSON Schema already and is copied as raw text;
// the legacy parameters (an OpenAPI-subset Schema) is converted to JSON
// Schema by appendJSONSchema. A function with neither takes no
// arguments (Parameters "").
func decodeFunctionDeclaration(f gjson.Result, path string, req *request) *codec.Error {
	if !f.IsObject() {
		return wire.WrongType(path, "object", f)
	}
	tool := codec.Tool{Kind: codec.ToolFunction}
	var legacy, schema gjson.Result
	var legacyKey, schemaKey string
	var err *codec.Error
	for k, member := range jsonx.Members(f.Raw, &req.Text) {
		v := member.Result()
		switch k {
		case "name":
			tool.Name, err = optString(v, path+".name")
		case "description":
			tool.Description, err = optString(v, path+".description")
		case "parameters":
			legacy, legacyKey = v, k
		case "parametersJsonSchema", "parameters_json_schema":
			schema, schemaKey = v, k
		case "response", "responseJsonSchema", "response_json_schema": //field:tools[].functionDeclarations[].response: capability
			if v.Type != gjson.Null {
				err = wire.UnsupportedField(path+"."+k, "schemas of a function's return value have no equivalent in other protocols")
			}
		case "behavior": //field:tools[].functionDeclarations[].behavior: capability
			if v.Type != gjson.Null && !(v.Type == gjson.String && (v.Str == "BLOCKING" || v.Str == "UNSPECIFIED")) {
				err = wire.UnsupportedField(path+".behavior", "non-blocking functions (Live API) are not supported")
			}
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if tool.Name == "" {
		return codec.InvalidRequest(path+".name", "is required")
	}
	hasLegacy := legacy.Exists() && legacy.Type != gjson.Null
	hasSchema := schema.Exists() && schema.Type != gjson.Null
	switch {
	case hasLegacy && hasSchema:
		return codec.InvalidRequest(path+"."+schemaKey, "parameters and parametersJsonSchema must not both be set")
	case hasSchema:
		if !schema.IsObject() {
			return wire.WrongType(path+"."+schemaKey, "object", schema)
		}
		tool.Parameters = schema.Raw
	case hasLegacy:
		if !legacy.IsObject() {
			return wire.WrongType(path+"."+legacyKey, "object", legacy)
		}
		b, err := appendJSONSchema(nil, legacy, path+"."+legacyKey, req)
		if err != nil {
			return err
		}
		tool.Parameters = jsonx.BytesToString(b)
	}
	req.Tools = append(req.Tools, tool)
	return nil
}

// schemaTypes maps the legacy Schema's Type enum to JSON Schema type
// names; TYPE_UNSPECIFIED is no type. Lower-case names are accepted too.
var schemaTypes = map[string]string{
	"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
	"ARRAY": "array", "OBJECT": "object", "NULL": "null", "TYPE_UNSPECIFIED": "",
	"string": "string", "number": "number", "integer": "integer", "boolean": "boolean",
	"array": "array", "object": "object", "null": "null",
}

// appendJSONSchema converts the legacy Gemini Schema s (the
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
func appendJSONSchema(dst []byte, s gjson.Result, path string, req *request) ([]byte, *codec.Error) {
	nullable := false
	var err *codec.Error
	for k, member := range jsonx.Members(s.Raw, &req.Text) {
		v := member.Result()
		if k == "nullable" {
			switch v.Type {
			case gjson.True:
				nullable = true
			case gjson.False, gjson.Null:
			default:
				err = wire.WrongType(path+".nullable", "boolean", v)
			}
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	empty := len(dst)
	for k, member := range jsonx.Members(s.Raw, &req.Text) {
		v := member.Result()
		if v.Type == gjson.Null {
			continue
		}
		fpath := path + "." + k
		switch k {
		case "nullable":
		case "type":
			if v.Type != gjson.String {
				err = wire.WrongType(fpath, "string", v)
				break
			}
			t, ok := schemaTypes[v.Str]
			switch {
			case !ok:
				err = codec.InvalidRequest(fpath, `unknown type "`+v.Str+`"`)
			case t == "":
			case nullable && t != "null":
				dst = appendKey(dst, empty, "type")
				dst = append(dst, `["`...)
				dst = append(dst, t...)
				dst = append(dst, `","null"]`...)
			default:
				dst = appendKey(dst, empty, "type")
				dst = jsonx.AppendString(dst, t)
			}
		case "format", "title", "description", "pattern":
			if v.Type != gjson.String {
				err = wire.WrongType(fpath, "string", v)
				break
			}
			dst = appendKey(dst, empty, k)
			dst = jsonx.AppendString(dst, v.Str)
		case "enum", "required":
			var list []string
			if list, err = wire.ReadStringList(v, fpath, false, nil, &req.Text); err == nil {
				dst = appendKey(dst, empty, k)
				dst = jsonx.AppendStringArray(dst, list)
			}
		case "minimum", "maximum":
			if v.Type != gjson.Number {
				err = wire.WrongType(fpath, "number", v)
				break
			}
			dst = appendKey(dst, empty, k)
			dst = append(dst, v.Raw...)
		case "default":
			dst = appendKey(dst, empty, "default")
			dst = append(dst, v.Raw...)
		case "example":
			dst = appendKey(dst, empty, "examples")
			dst = append(dst, '[')
			dst = append(dst, v.Raw...)
			dst = append(dst, ']')
		case "minItems", "min_items", "maxItems", "max_items", "minLength", "min_length",
			"maxLength", "max_length", "minProperties", "min_properties", "maxProperties", "max_properties":
			n, ok := geminiInt64(v)
			if !ok {
				err = wire.WrongType(fpath, "integer", v)
				break
			}
			dst = appendKey(dst, empty, camel(k))
			dst = jsonx.AppendInt(dst, n)
		case "properties":
			if !v.IsObject() {
				err = wire.WrongType(fpath, "object", v)
				break
			}
			dst = appendKey(dst, empty, "properties")
			dst = append(dst, '{')
			first := true
			for name, member := range jsonx.Members(v.Raw, &req.Text) {
				sub := member.Result()
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = jsonx.AppendString(dst, name)
				dst = append(dst, ':')
				dst, err = appendSubSchema(dst, sub, fpath+"."+name, req)
				if err != nil {
					break
				}
			}
			dst = append(dst, '}')
		case "items":
			dst = appendKey(dst, empty, "items")
			dst, err = appendSubSchema(dst, v, fpath, req)
		case "additionalProperties", "additional_properties":
			dst = appendKey(dst, empty, "additionalProperties")
			if v.Type == gjson.True || v.Type == gjson.False {
				dst = append(dst, v.Raw...)
				break
			}
			dst, err = appendSubSchema(dst, v, fpath, req)
		case "anyOf", "any_of":
			if !v.IsArray() {
				err = wire.WrongType(fpath, "array", v)
				break
			}
			dst = appendKey(dst, empty, "anyOf")
			dst = append(dst, '[')
			i := 0
			for _, member := range jsonx.Members(v.Raw, &req.Text) {
				sub := member.Result()
				if i > 0 {
					dst = append(dst, ',')
				}
				dst, err = appendSubSchema(dst, sub, wire.IndexPath(fpath, i), req)
				i++
				if err != nil {
					break
				}
			}
			dst = append(dst, ']')
		case "propertyOrdering", "property_ordering":
			req.Dropped = append(req.Dropped, fpath)
		default:
			err = wire.UnsupportedField(fpath, "this Schema field has no JSON Schema conversion; use parametersJsonSchema")
		}
		if err != nil {
			break
		}
	}
	return append(dst, '}'), err
}

// appendSubSchema converts a nested legacy Schema, which must be an
// object.
func appendSubSchema(dst []byte, v gjson.Result, path string, req *request) ([]byte, *codec.Error) {
	if !v.IsObject() {
		return dst, wire.WrongType(path, "object", v)
	}
	return appendJSONSchema(dst, v, path, req)
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

// camel returns the lowerCamelCase spelling of a snake_case key.
func camel(k string) string {
	i := strings.IndexByte(k, '_')
	if i < 0 {
		return k
	}
	return k[:i] + strings.ToUpper(k[i+1:i+2]) + k[i+2:]
}

// toolChoice is a decoded toolConfig, resolved against the tools
// once the whole request is read.
type toolChoice struct {
	// names are the allowedFunctionNames, at path.
	names []string
	path  string
}

// decodeToolConfig decodes toolConfig.functionCallingConfig into
// req.ToolChoice: AUTO is auto, NONE none, ANY required, and ANY with one
// allowed function name forces that function (ANY with several names is
// resolved by resolve). VALIDATED (constrained decoding of calls or text)
// has no equivalent elsewhere. streamFunctionCallArguments only shapes the
// stream (arguments are then sent whole) and is dropped as a hint.
func decodeToolConfig(v gjson.Result, key string, req *request) (toolChoice, *codec.Error) {
	var c toolChoice
	switch {
	case v.Type == gjson.Null:
		return c, nil
	case !v.IsObject():
		return c, wire.WrongType(key, "object", v)
	}
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		switch k {
		case "functionCallingConfig", "function_calling_config": //field:toolConfig.functionCallingConfig: mapped
			c, err = decodeFunctionCallingConfig(f, key+"."+k, req)
		case "retrievalConfig", "retrieval_config": //field:toolConfig.retrievalConfig: capability
			if f.Type != gjson.Null {
				err = wire.UnsupportedField(key+"."+k, "retrieval configuration is for hosted tools, which are not supported yet")
			}
		default:
			err = wire.UnknownField(key + "." + k)
		}
		if err != nil {
			break
		}
	}
	return c, err
}

// decodeFunctionCallingConfig decodes functionCallingConfig at path.
func decodeFunctionCallingConfig(v gjson.Result, path string, req *request) (toolChoice, *codec.Error) {
	var c toolChoice
	switch {
	case v.Type == gjson.Null:
		return c, nil
	case !v.IsObject():
		return c, wire.WrongType(path, "object", v)
	}
	var err *codec.Error
	hasNames := false
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		fpath := path + "." + k
		switch k {
		case "mode":
			var mode string
			if mode, err = optString(f, fpath); err != nil {
				break
			}
			switch mode {
			case "", "MODE_UNSPECIFIED":
				req.ToolChoice.Mode = codec.ToolChoiceUnset
			case "AUTO":
				req.ToolChoice.Mode = codec.ToolChoiceAuto
			case "NONE":
				req.ToolChoice.Mode = codec.ToolChoiceNone
			case "ANY":
				req.ToolChoice.Mode = codec.ToolChoiceRequired
			case "VALIDATED": //field:toolConfig.functionCallingConfig.mode (VALIDATED): capability
				err = wire.UnsupportedField(fpath, "mode VALIDATED has no equivalent in other protocols")
			default:
				err = codec.InvalidRequest(fpath, `must be "AUTO", "ANY", "NONE" or "VALIDATED"`)
			}
		case "allowedFunctionNames", "allowed_function_names":
			hasNames = f.Type != gjson.Null
			c.names, err = wire.ReadStringList(f, fpath, false, nil, &req.Text)
			c.path = fpath
		case "streamFunctionCallArguments", "stream_function_call_arguments":
			var b bool
			if f.Type != gjson.Null {
				b, err = wire.ReadBool(f, fpath)
			}
			if b {
				req.Dropped = append(req.Dropped, fpath)
			}
		default:
			err = wire.UnknownField(fpath)
		}
		if err != nil {
			break
		}
	}
	if err == nil && hasNames && req.ToolChoice.Mode != codec.ToolChoiceRequired {
		err = codec.InvalidRequest(c.path, "is only allowed with mode ANY")
	}
	return c, err
}

// resolve applies allowedFunctionNames once the tools are known: one name
// forces that function; several that name every declared function are the
// same as none (any function); any other set has no equivalent in other
// protocols, which can force one tool or any.
func (c *toolChoice) resolve(req *request) *codec.Error {
	switch {
	case len(c.names) == 0:
		return nil
	case len(c.names) == 1:
		req.ToolChoice = codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: c.names[0]}
		return nil
	}
	for _, t := range req.Tools {
		found := false
		for _, n := range c.names {
			found = found || n == t.Name
		}
		if !found {
			return wire.UnsupportedField(c.path, "allowing a subset of the functions has no equivalent in other protocols (name one function, or all)")
		}
	}
	return nil
}
