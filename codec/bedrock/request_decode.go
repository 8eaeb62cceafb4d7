package bedrock

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// converseRequestDecoder holds the state of one request decode: the
// destination and what has been seen of the required fields.
type converseRequestDecoder struct {
	req         *request
	sawMessages bool
	parts       []codec.Part // backing array shared by the Parts of all messages

	// thinkingOff and effort are additionalModelRequestFields.thinking
	// {type:"disabled"} and outputConfig.effort, combined into
	// req.Reasoning once the whole body is read, since both speak for
	// Reasoning.Effort and may come in either order.
	thinkingOff bool
	effort      mapping.Effort
}

// decodeConverseRequest decodes a Converse request body into req. The
// top-level object is walked once; every key is mapped, recorded as a
// dropped hint, rejected as a capability, or rejected as unknown. The
// model is in the URL path, which the caller reads, and so is whether the
// client streams.
func decodeConverseRequest(root gjson.Result, req *request) *codec.Error {
	d := converseRequestDecoder{req: req}
	var err *codec.Error
	for key, member := range jsonx.Members(root.Raw, &req.Text) {
		value := member.Result()
		err = d.field(key, value)
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if !d.sawMessages {
		return codec.InvalidRequest("messages", "is required")
	}
	d.finishReasoning()
	return nil
}

// field decodes one top-level field.
//
//fields:all
func (d *converseRequestDecoder) field(name string, v gjson.Result) *codec.Error {
	req := d.req
	switch name {
	case "messages": //field:mapped
		return d.messages(v)
	case "system": //field:mapped
		return d.system(v)
	case "inferenceConfig": //field:-
		return d.inferenceConfig(v)
	case "toolConfig": //field:-
		return d.toolConfig(v)
	case "outputConfig": //field:-
		return d.outputConfig(v)
	case "additionalModelRequestFields": //field:-
		return d.additionalFields(v)
	case "additionalModelResponseFieldPaths": //field:hint
		// Extra response fields of the model's own (JSON pointers into
		// its native response) say nothing about what is generated.
		return dropHint(req, name, v, "array", gjson.Result.IsArray)
	case "performanceConfig", "requestMetadata": //field:hint
		// Latency optimisation and invocation log metadata steer the
		// provider, not what the model generates.
		return dropHint(req, name, v, "object", gjson.Result.IsObject)
	case "serviceTier": //field:hint
		// The service tier is a scheduling hint, as service_tier is for
		// OpenAI and Anthropic.
		return dropHint(req, name, v, "object", gjson.Result.IsObject)
	case "guardrailConfig": //field:hint
		// A guardrail is a provider-side filter, like Gemini's
		// safetySettings: it screens what is generated, it does not
		// change it.
		return dropHint(req, name, v, "object", gjson.Result.IsObject)
	case "promptVariables": //field:capability
		return wire.RejectUnlessNull(v, name, "prompt variables fill a Bedrock prompt management template, which no other protocol has")
	}
	return wire.UnknownField(name)
}

// dropHint records a hint field at path, whose value must pass is (want
// names that JSON type in the error); null is absent and not recorded.
func dropHint(req *request, path string, v gjson.Result, want string, is func(gjson.Result) bool) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !is(v):
		return wire.WrongType(path, want, v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// messages decodes the conversation, with one backing array for the
// parts of all messages (wire.DecodeMessages).
func (d *converseRequestDecoder) messages(v gjson.Result) *codec.Error {
	return wire.DecodeMessages(d.req, v, &d.parts, &d.sawMessages, d.message)
}

// message decodes messages[i].
func (d *converseRequestDecoder) message(m gjson.Result, i int) (codec.Message, *codec.Error) {
	var msg codec.Message
	if !m.IsObject() {
		return msg, wire.WrongType(wire.IndexPath("messages", i), "object", m)
	}
	start := len(d.parts)
	var hasRole, hasContent bool
	var content gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(m.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "role":
			hasRole = true
			msg.Role, err = converseRole(value, i)
		case "content":
			hasContent, content = value.Type != gjson.Null, value
		default:
			err = wire.UnknownField(wire.IndexPath("messages", i) + "." + key)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return msg, err
	case !hasRole:
		return msg, codec.InvalidRequest(wire.IndexPath("messages", i)+".role", "is required")
	case !hasContent:
		return msg, codec.InvalidRequest(wire.IndexPath("messages", i)+".content", "is required")
	}
	// The content is read once the role is known: which blocks a message
	// may hold depends on it.
	if err := d.content(content, i, msg.Role); err != nil {
		return msg, err
	}
	if end := len(d.parts); end > start {
		msg.Parts = d.parts[start:end:end]
	}
	d.nameResults(&msg, i)
	return msg, nil
}

// nameResults gives each tool result of msg, messages[i], the name of the
// call it answers when the preceding message has it: Converse does not
// repeat the name, and protocols such as Gemini need it.
func (d *converseRequestDecoder) nameResults(msg *codec.Message, i int) {
	if i == 0 {
		return
	}
	prev := d.req.Messages[i-1].Parts
	for j := range msg.Parts {
		p := &msg.Parts[j]
		if p.Type != codec.PartToolResult {
			continue
		}
		for k := range prev {
			if prev[k].Type == codec.PartToolCall && prev[k].ToolCallID == p.ToolCallID {
				p.ToolName = prev[k].ToolName
				break
			}
		}
	}
}

// converseRole reads messages[i].role: Converse has user and assistant
// turns; system instructions are the top-level system field.
func converseRole(v gjson.Result, i int) (codec.Role, *codec.Error) {
	if v.Type != gjson.String {
		return codec.RoleUser, wire.WrongType(wire.IndexPath("messages", i)+".role", "string", v)
	}
	switch v.Str {
	case "user":
		return codec.RoleUser, nil
	case "assistant":
		return codec.RoleAssistant, nil
	}
	return codec.RoleUser, codec.InvalidRequest(wire.IndexPath("messages", i)+".role", `must be "user" or "assistant"`)
}

// content decodes messages[i].content, an array of blocks, into the
// shared parts array.
func (d *converseRequestDecoder) content(v gjson.Result, i int, role codec.Role) *codec.Error {
	if !v.IsArray() {
		return wire.WrongType(wire.IndexPath("messages", i)+".content", "array", v)
	}
	j := 0
	var err *codec.Error
	for _, member := range jsonx.Members(v.Raw, &d.req.Text) {
		b := member.Result()
		err = d.block(b, blockPos{msg: i, block: j}, role)
		j++
		if err != nil {
			break
		}
	}
	return err
}

// system decodes the top-level system prompt, an array of text blocks
// with cache points between them.
//
//fields:prefix system[].
func (d *converseRequestDecoder) system(v gjson.Result) *codec.Error {
	req := d.req
	// A repeated key replaces the earlier value, as JSON decoders do.
	req.System = req.System[:0]
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType("system", "array", v)
	}
	j := 0
	var err *codec.Error
members:
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		b := member.Result()
		path := wire.IndexPath("system", j)
		j++
		key, value, ok := unionMember(b, &req.Text)
		if !ok {
			err = unionError(path, b)
			break
		}
		switch key {
		case "text":
			if value.Type != gjson.String {
				err = wire.WrongType(path+".text", "string", value)
				break members
			}
			req.System = append(req.System, wire.TextPart(codec.PartText, value))
		case "cachePoint": //field:hint
			// A breakpoint after the system text before it.
			err = cachePoint(req.Request, value, path, lastCache(req.System))
		case "guardContent": //field:capability
			err = wire.UnsupportedField(path, "guardrail content is evaluated by a Bedrock guardrail, which no other protocol has")
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
	req.SystemRole = codec.RoleSystem
	return nil
}

// unionMember returns the one member of a union object v (a content
// block, a tool, a source): its key and value. It reports false when v is
// not an object of exactly one member.
func unionMember(v gjson.Result, a *jsonx.Arena) (key string, value gjson.Result, ok bool) {
	if !v.IsObject() {
		return "", value, false
	}
	n := 0
	for k, member := range jsonx.Members(v.Raw, a) {
		val := member.Result()
		n++
		key, value = k, val
		if n != 1 {
			break
		}
	}
	return key, value, n == 1
}

// unionError is the error for a union at path that is not an object of
// exactly one member.
func unionError(path string, v gjson.Result) *codec.Error {
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	return codec.InvalidRequest(path, "must have exactly one member")
}

// inferenceConfig decodes the common sampling settings.
//
//fields:prefix inferenceConfig.
func (d *converseRequestDecoder) inferenceConfig(v gjson.Result) *codec.Error {
	req := d.req
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("inferenceConfig", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		switch key {
		case "maxTokens": //field:mapped
			err = wire.ReadInt(value, "inferenceConfig.maxTokens", &req.MaxTokens)
		case "temperature": //field:mapped
			err = wire.ReadFloat(value, "inferenceConfig.temperature", &req.Temperature)
		case "topP": //field:mapped
			err = wire.ReadFloat(value, "inferenceConfig.topP", &req.TopP)
		case "stopSequences": //field:capability
			req.StopSequences, err = wire.ReadStringList(value, "inferenceConfig.stopSequences", false, req.StopSequences[:0], &d.req.Text)
		default:
			err = wire.UnknownField("inferenceConfig." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// finishReasoning combines thinking disabled and outputConfig.effort: a
// disabled thinking is effort none unless an effort was also given.
func (d *converseRequestDecoder) finishReasoning() {
	r := &d.req.Reasoning
	switch {
	case d.effort != mapping.EffortUnset:
		r.Effort = d.effort
	case d.thinkingOff:
		r.Effort = mapping.EffortNone
	}
}
