package bedrock

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// toolConfig decodes the tool definitions and the tool choice.
//
//fields:prefix toolConfig.
func (d *converseRequestDecoder) toolConfig(v gjson.Result) *codec.Error {
	req := d.req
	req.Tools, req.ToolChoice = req.Tools[:0], codec.ToolChoice{}
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("toolConfig", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		switch key {
		case "tools": //field:mapped
			err = d.tools(value)
		case "toolChoice": //field:mapped
			err = d.toolChoice(value)
		default:
			err = wire.UnknownField("toolConfig." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// tools decodes toolConfig.tools: tool specifications, with cache points
// between them.
//
//fields:prefix toolConfig.tools[].
func (d *converseRequestDecoder) tools(v gjson.Result) *codec.Error {
	req := d.req
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType("toolConfig.tools", "array", v)
	}
	i := 0
	var err *codec.Error
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		t := member.Result()
		path := wire.IndexPath("toolConfig.tools", i)
		i++
		key, value, ok := unionMember(t, &req.Text)
		if !ok {
			err = unionError(path, t)
			break
		}
		switch key {
		case "toolSpec":
			err = d.toolSpec(value, path+".toolSpec")
		case "cachePoint": //field:hint
			var after *codec.CacheTTL
			if n := len(req.Tools); n > 0 {
				after = &req.Tools[n-1].Cache
			}
			err = cachePoint(req.Request, value, path, after)
		case "systemTool": //field:capability
			err = wire.UnsupportedField(path, "Bedrock system tools run on Bedrock and have no equivalent in the other protocols")
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// toolSpec decodes one tool specification at path.
//
//fields:prefix toolConfig.tools[].toolSpec.
func (d *converseRequestDecoder) toolSpec(v gjson.Result, path string) *codec.Error {
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	var t codec.Tool
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "name":
			t.Name, err = wire.ReadStringAt(value, path, ".name")
		case "description":
			t.Description, err = wire.ReadStringAt(value, path, ".description")
		case "inputSchema":
			key, schema, ok := unionMember(value, &d.req.Text)
			switch {
			case !ok:
				err = unionError(path+".inputSchema", value)
			case key != "json":
				err = wire.UnknownField(path + ".inputSchema." + key)
			default:
				err = wire.ReadObjectRaw(schema, path+".inputSchema.json", &t.Parameters)
			}
		case "strict": //field:capability
			err = wire.ReadOptBool(value, path+".strict", &t.Strict)
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return err
	case t.Name == "":
		return codec.InvalidRequest(path+".name", "is required")
	}
	d.req.Tools = append(d.req.Tools, t)
	return nil
}

// toolChoice decodes toolConfig.toolChoice, a union of auto, any (a call
// is required) and tool (a call of the named tool is required).
func (d *converseRequestDecoder) toolChoice(v gjson.Result) *codec.Error {
	const path = "toolConfig.toolChoice"
	if v.Type == gjson.Null {
		return nil
	}
	key, value, ok := unionMember(v, &d.req.Text)
	if !ok {
		return unionError(path, v)
	}
	c := &d.req.ToolChoice
	switch key {
	case "auto":
		c.Mode = codec.ToolChoiceAuto
	case "any":
		c.Mode = codec.ToolChoiceRequired
	case "tool":
		name := value.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return codec.InvalidRequest(path+".tool.name", "is required")
		}
		c.Mode, c.Name = codec.ToolChoiceNamed, name.Str
		return nil
	default:
		return wire.UnknownField(path + "." + key)
	}
	if !value.IsObject() {
		return wire.WrongType(path+"."+key, "object", value)
	}
	return nil
}

// outputConfig decodes outputConfig: textFormat, the JSON schema the
// answer must follow, and effort.
//
//fields:prefix outputConfig.
func (d *converseRequestDecoder) outputConfig(v gjson.Result) *codec.Error {
	d.effort, d.req.Format = mapping.EffortUnset, codec.OutputFormat{}
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("outputConfig", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "textFormat": //field:mapped
			err = d.textFormat(value)
		case "effort": //field:mapped
			d.effort, err = wire.ReadEffort(value, "outputConfig.effort")
		default:
			err = wire.UnknownField("outputConfig." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// textFormat reads outputConfig.textFormat: {type: "json_schema",
// structure: {jsonSchema: {schema, name, description}}}, whose schema is
// the JSON text of a schema object in a string.
func (d *converseRequestDecoder) textFormat(v gjson.Result) *codec.Error {
	const path = "outputConfig.textFormat"
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	}
	if typ := v.Get("type"); typ.Str != "json_schema" {
		return codec.InvalidRequest(path+".type", `must be "json_schema"`)
	}
	js := v.Get("structure.jsonSchema")
	if !js.IsObject() {
		return codec.InvalidRequest(path+".structure.jsonSchema", "is required")
	}
	f := codec.OutputFormat{Kind: codec.FormatJSONSchema}
	var err *codec.Error
	for key, member := range jsonx.Members(js.Raw, &d.req.Text) {
		value := member.Result()
		p := path + ".structure.jsonSchema"
		switch key {
		case "schema":
			f.Schema, err = wire.ReadStringAt(value, p, ".schema")
			if err == nil && !jsonx.IsObject(f.Schema) {
				err = codec.InvalidRequest(p+".schema", "must be the text of a JSON object")
			}
		case "name":
			f.Name, err = wire.ReadStringAt(value, p, ".name")
		case "description":
			f.Description, err = wire.ReadStringAt(value, p, ".description")
		default:
			err = wire.UnknownField(p + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if f.Schema == "" {
		return codec.InvalidRequest(path+".structure.jsonSchema.schema", "is required")
	}
	d.req.Format = f
	return nil
}

// additionalFields decodes additionalModelRequestFields, the model
// vendor's own fields. Claude's (thinking, top_k and anthropic_beta) are
// read into the canonical request; any other field is a capability no
// other protocol has.
//
//fields:prefix additionalModelRequestFields.
func (d *converseRequestDecoder) additionalFields(v gjson.Result) *codec.Error {
	const path = "additionalModelRequestFields"
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	}
	req := d.req
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		switch key {
		case "thinking": //field:mapped
			err = d.thinking(value)
		case "top_k": //field:capability
			err = wire.ReadInt(value, path+".top_k", &req.TopK)
		case "anthropic_beta": //field:hint
			// Beta flags switch features of Anthropic's servers, which
			// other families do not have; toward an Anthropic upstream
			// they travel in a header the HTTP layer controls.
			err = dropHint(req, path+".anthropic_beta", value, "array", gjson.Result.IsArray)
		default:
			err = wire.UnsupportedField(path+"."+key, "a model-specific field that llmbridge does not translate") //field:additionalModelRequestFields (other): capability
		}
		if err != nil {
			break
		}
	}
	return err
}

// thinking decodes Claude's thinking configuration: enabled
// {budget_tokens} is a thinking budget, adaptive lets the model decide,
// disabled asks for no reasoning.
func (d *converseRequestDecoder) thinking(v gjson.Result) *codec.Error {
	const path = "additionalModelRequestFields.thinking"
	r := &d.req.Reasoning
	r.Budget, r.Adaptive, r.Display, d.thinkingOff = codec.OptInt{}, false, "", false
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	}
	var typ, budget, display gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "budget_tokens":
			budget = value
		case "display":
			display = value
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	switch {
	case typ.Type != gjson.String:
		return codec.InvalidRequest(path+".type", "is required")
	case typ.Str == "enabled":
		if err := wire.ReadInt(budget, path+".budget_tokens", &r.Budget); err != nil {
			return err
		}
		if !r.Budget.Set || r.Budget.Value < wire.ClaudeMinBudget {
			return codec.InvalidRequest(path+".budget_tokens", "is required and must be at least 1024")
		}
	case typ.Str == "adaptive":
		r.Adaptive = true
	case typ.Str == "disabled":
		d.thinkingOff = true
		return nil
	default:
		return codec.InvalidRequest(path+".type", `must be "enabled", "adaptive" or "disabled"`)
	}
	if display.Type == gjson.String && (display.Str == "summarized" || display.Str == "omitted") {
		r.Display = display.Str
	} else if display.Exists() && display.Type != gjson.Null {
		return codec.InvalidRequest(path+".display", `must be "summarized" or "omitted"`)
	}
	return nil
}
