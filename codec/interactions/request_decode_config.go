package interactions

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeGenerationConfig decodes generation_config.
//
//fields:prefix generation_config.
func decodeGenerationConfig(v gjson.Result, req *request) *codec.Error {
	const path = "generation_config"
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		var err *codec.Error
		switch k {
		case "temperature": //field:mapped
			err = wire.ReadFloat(f, "generation_config.temperature", &req.Temperature)
		case "top_p": //field:mapped
			err = wire.ReadFloat(f, "generation_config.top_p", &req.TopP)
		case "seed": //field:hint
			err = wire.ReadInt(f, "generation_config.seed", &req.Seed)
		case "max_output_tokens": //field:mapped
			err = wire.ReadInt(f, "generation_config.max_output_tokens", &req.MaxTokens)
		case "stop_sequences": //field:capability
			req.StopSequences, err = wire.ReadStringList(f, "generation_config.stop_sequences", false, req.StopSequences, &req.Text)
		case "thinking_level": //field:mapped
			err = decodeThinkingLevel(f, "generation_config.thinking_level", req)
		case "thinking_summaries": //field:hint
			err = decodeThinkingSummaries(f, "generation_config.thinking_summaries", req)
		case "tool_choice": //field:mapped
			err = decodeToolChoice(f, "generation_config.tool_choice", req)
		case "image_config", "speech_config", "video_config", "transcription_config": //field:generation_config (image_config, speech_config, ...): capability
			err = wire.RejectUnlessNull(f, path+"."+k, "it has no equivalent in other protocols")
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// thinkingLevels maps thinking_level values to efforts.
var thinkingLevels = map[string]mapping.Effort{
	"minimal": mapping.EffortMinimal, "low": mapping.EffortLow, "medium": mapping.EffortMedium, "high": mapping.EffortHigh,
}

// decodeThinkingLevel reads thinking_level as the request's effort.
func decodeThinkingLevel(v gjson.Result, path string, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	e, ok := thinkingLevels[v.Str]
	if v.Type != gjson.String || !ok {
		return codec.InvalidRequest(path, "must be one of minimal, low, medium, high")
	}
	req.Reasoning.Effort = e
	return nil
}

// decodeThinkingSummaries reads thinking_summaries: auto returns the
// thoughts' summaries, none does not (Gemini's includeThoughts).
func decodeThinkingSummaries(v gjson.Result, path string, req *request) *codec.Error {
	switch {
	case v.Type == gjson.Null:
	case v.Str == "auto" && v.Type == gjson.String:
		req.Reasoning.IncludeThoughts = codec.OptBool{Value: true, Set: true}
	case v.Str == "none" && v.Type == gjson.String:
		req.Reasoning.IncludeThoughts = codec.OptBool{Value: false, Set: true}
	default:
		return codec.InvalidRequest(path, "must be auto or none")
	}
	return nil
}

// decodeToolChoice reads tool_choice: a mode (auto, any, none), or an
// allowed_tools object whose mode forces one of its tools; a choice of
// one tool is a named choice, others and validated mode have no
// equivalent.
func decodeToolChoice(v gjson.Result, path string, req *request) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		switch v.Str {
		case "auto":
			req.ToolChoice.Mode = codec.ToolChoiceAuto
		case "any":
			req.ToolChoice.Mode = codec.ToolChoiceRequired
		case "none":
			req.ToolChoice.Mode = codec.ToolChoiceNone
		case "validated":
			return wire.UnsupportedField(path, "validated function calling has no equivalent in other protocols")
		default:
			return codec.InvalidRequest(path, "must be auto, any, none or validated")
		}
		return nil
	case v.IsObject():
		allowed := v.Get("allowed_tools")
		tools := allowed.Get("tools").Array()
		if allowed.Get("mode").Str == "any" && len(tools) == 1 && tools[0].Type == gjson.String {
			req.ToolChoice = codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: tools[0].Str}
			return nil
		}
		return wire.UnsupportedField(path+".allowed_tools", "only a choice of one tool in mode any can be translated")
	}
	return wire.WrongType(path, "string or object", v)
}

// decodeTools decodes tools: functions and Google Search.
func decodeTools(v gjson.Result, req *request) *codec.Error {
	const key = "tools"
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType(key, "array", v)
	}
	i := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		t := member.Result()
		path := wire.IndexPath(key, i)
		i++
		if !t.IsObject() {
			return wire.WrongType(path, "object", t)
		}
		switch typ := t.Get("type").Str; typ {
		case "function": //field:tools[] (function): mapped
			if err := decodeFunction(t, path, req); err != nil {
				return err
			}
		case "google_search": //field:tools[] (google_search): capability
			req.Tools = append(req.Tools, codec.Tool{Kind: codec.ToolWebSearch, Name: "web_search", Source: path})
		case "code_execution", "url_context", "file_search", "mcp_server", "google_maps", "computer_use", "retrieval": //field:tools[] (code_execution, url_context, file_search, ...): capability
			return wire.UnsupportedField(path, `hosted tool "`+typ+`" cannot be translated (only google_search is)`)
		default:
			return codec.InvalidRequest(path+".type", `unknown tool type "`+typ+`"`)
		}
	}
	return nil
}

// decodeFunction decodes a function tool.
func decodeFunction(t gjson.Result, path string, req *request) *codec.Error {
	tool := codec.Tool{Kind: codec.ToolFunction}
	for k, member := range jsonx.Members(t.Raw, &req.Text) {
		f := member.Result()
		var err *codec.Error
		switch k {
		case "type":
		case "name":
			tool.Name, err = wire.ReadString(f, path+".name")
		case "description":
			err = wire.ReadOptString(f, path+".description", &tool.Description)
		case "parameters":
			err = wire.ReadObjectRaw(f, path+".parameters", &tool.Parameters)
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			return err
		}
	}
	if tool.Name == "" {
		return codec.InvalidRequest(path+".name", "is required")
	}
	req.Tools = append(req.Tools, tool)
	return nil
}

// format collects response_format and response_mime_type, which are
// judged together.
type format struct {
	format    gjson.Result
	formatKey string
	mime      string
}

// resolve sets req.Format. response_format is a format object ({"type":
// "text", "mime_type": "application/json", "schema": {...}}), a list of
// one, or a JSON Schema by itself, which response_mime_type
// application/json goes with; application/json without a schema is any
// JSON object.
func (f *format) resolve(req *request) *codec.Error {
	v, path := f.format, f.formatKey
	if v.IsArray() {
		items := v.Array()
		if len(items) > 1 {
			return wire.UnsupportedField(path, "more than one response format has no equivalent in other protocols")
		}
		if len(items) == 1 {
			v, path = items[0], path+"[0]"
		}
	}
	mime := f.mime
	schema := ""
	switch {
	case !v.Exists() || v.Type == gjson.Null || v.IsArray():
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	case v.Get("type").Str == "text":
		if m := v.Get("mime_type"); m.Exists() {
			mime = m.Str
		}
		if s := v.Get("schema"); s.Exists() {
			if err := wire.ReadObjectRaw(s, path+".schema", &schema); err != nil {
				return err
			}
		}
	case v.Get("type").Type == gjson.String && (v.Get("type").Str == "image" || v.Get("type").Str == "audio" || v.Get("type").Str == "video"):
		return wire.UnsupportedField(path, "only text output can be translated")
	default:
		schema = v.Raw
		if mime == "" {
			mime = "application/json"
		}
	}
	switch mime {
	case "", "text/plain":
		if schema != "" {
			return codec.InvalidRequest(path, "a schema needs mime_type application/json")
		}
	case "application/json":
		req.Format = codec.OutputFormat{Kind: codec.FormatJSONObject}
		if schema != "" {
			req.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: schema}
		}
	default:
		return wire.UnsupportedField("response_mime_type", "media type "+mime+" has no equivalent in other protocols")
	}
	return nil
}
