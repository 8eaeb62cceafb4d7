package anthropic

import (
	"slices"
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// requestDecoder holds the state of one request decode: the
// destination and what has been seen of the required fields.
type requestDecoder struct {
	req *request
	// p is the protocol of the body; a cloud's (Vertex, Bedrock) names
	// the model in the path and the version in the body.
	p           codec.Protocol
	sawMessages bool
	parts       []codec.Part // backing array shared by the Parts of all messages

	// thinkingOff and effort are thinking {type:"disabled"} and
	// output_config.effort, combined into req.Reasoning once the whole body
	// is read, since both speak for Reasoning.Effort and may come in either
	// order.
	thinkingOff bool
	effort      mapping.Effort

	// system is the top-level system member as the walk met it, so that
	// a system prompt given as a string keeps its literal unescaped
	// (wire.ValueTextPart).
	system jsonx.Value
}

// decodeRequest decodes a Messages request body into req. The
// top-level object is walked once; every key is mapped, recorded as a
// dropped hint, rejected as a capability outside the current scope, or
// rejected as unknown.
func decodeRequest(root gjson.Result, req *request, p codec.Protocol) *codec.Error {
	d := requestDecoder{req: req, p: p}
	var err *codec.Error
	for key, member := range jsonx.Members(root.Raw, &req.Text) {
		var value gjson.Result
		if key == "system" {
			// A string is read from the member itself, unescaped
			// only if something reads it.
			d.system, value = member, member.Shallow()
		} else {
			value = member.Result()
		}
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
	// An Anthropic stream always reports usage, so a streaming Anthropic
	// client expects it whatever the upstream.
	req.StreamUsage = req.Stream
	return nil
}

// field decodes one top-level field.
//
//fields:all
func (d *requestDecoder) field(name string, v gjson.Result) *codec.Error {
	req := d.req
	switch name {
	case "model": //field:mapped
		return d.model(v)
	case "messages": //field:mapped
		return d.messages(v)
	case "system": //field:mapped
		return d.decodeSystem(v)
	case "max_tokens": //field:mapped
		return wire.ReadInt(v, "max_tokens", &req.MaxTokens)
	case "temperature": //field:mapped
		return wire.ReadFloat(v, "temperature", &req.Temperature)
	case "top_p": //field:mapped
		return wire.ReadFloat(v, "top_p", &req.TopP)
	case "top_k": //field:capability
		return wire.ReadInt(v, "top_k", &req.TopK)
	case "stop_sequences": //field:capability
		var err *codec.Error
		req.StopSequences, err = wire.ReadStringList(v, "stop_sequences", false, req.StopSequences, &req.Text)
		return err
	case "stream": //field:mapped
		if v.Type == gjson.Null {
			return nil
		}
		var err *codec.Error
		req.Stream, err = wire.ReadBool(v, "stream")
		return err
	case "metadata": //field:-
		return d.metadata(v)
	case "anthropic_version": //field:-
		// Only the clouds' dialects carry the API version in the body;
		// the encoder of the upstream protocol writes its own.
		if d.p == codec.AnthropicMessages {
			return wire.UnknownField(name)
		}
		return stringHint(req, name, v)
	case "anthropic_beta": //field:-
		// Bedrock takes the beta values in the body; the HTTP layer
		// carries them to an upstream of another protocol as the
		// header, so a translation has no use for them.
		if d.p != codec.BedrockAnthropic {
			return wire.UnknownField(name)
		}
		return betaHint(req, name, v)
	case "service_tier", "inference_geo", "speed": //field:hint
		// Capacity, region and speed choices steer the provider, not what
		// the model generates.
		return stringHint(req, name, v)
	case "context_management": //field:hint
		return contextManagement(req, v)
	case "cache_control": //field:hint
		// Automatic prompt caching (seen in real traffic): Anthropic
		// places the breakpoint itself.
		var err *codec.Error
		req.Cache.Auto, err = anthropicCache(v, name)
		return err
	case "diagnostics": //field:hint
		// Cache diagnostics are a provider-side report.
		return objectHint(req, name, v)
	case "thinking": //field:mapped
		return d.thinking(v)
	case "output_config": //field:-
		return d.outputConfig(v)
	case "tools": //field:mapped
		return d.tools(v)
	case "mcp_servers": //field:capability
		return rejectNonEmpty(name, v, "MCP servers are not supported yet")
	case "tool_choice": //field:mapped
		return d.toolChoice(v)
	case "container": //field:capability
		return wire.RejectUnlessNull(v, name, "code execution containers are not supported")
	case "output_format": //field:capability
		// The beta predecessor of output_config.format; the released API
		// takes the format there.
		return wire.RejectUnlessNull(v, name, "use output_config.format for structured output")
	}
	return wire.UnknownField(name)
}

// model reads the model. A Vertex body must not carry one: on Vertex the
// model is part of the URL path, which the caller has read.
func (d *requestDecoder) model(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if d.p != codec.AnthropicMessages {
		return codec.InvalidRequest("model", "must not be set in a "+string(d.p)+" body: the model is part of the URL path")
	}
	var err *codec.Error
	d.req.Model, err = wire.ReadString(v, "model")
	return err
}

// messages decodes the conversation, with one backing array for the
// parts of all messages (wire.DecodeMessages).
func (d *requestDecoder) messages(v gjson.Result) *codec.Error {
	return wire.DecodeMessages(d.req, v, &d.parts, &d.sawMessages, d.message)
}

// message decodes messages[i].
func (d *requestDecoder) message(m gjson.Result, i int) (codec.Message, *codec.Error) {
	var msg codec.Message
	if !m.IsObject() {
		return msg, wire.WrongType(wire.IndexPath("messages", i), "object", m)
	}
	start := len(d.parts)
	var hasRole, hasContent bool
	var err *codec.Error
	for key, member := range jsonx.Members(m.Raw, &d.req.Text) {
		switch key {
		case "role":
			hasRole = true
			msg.Role, err = role(member.Result(), i)
		case "content":
			if member.Raw != "null" {
				hasContent = true
				err = d.content(member, i)
			}
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
	if end := len(d.parts); end > start {
		msg.Parts = d.parts[start:end:end]
	}
	return msg, d.checkToolParts(&msg, i)
}

// checkToolParts checks that tool_use and thinking blocks are in an
// assistant message and tool_result blocks in a user message (the role may follow the content in
// the object, so this is done once the message is decoded), and gives each
// tool result the name of the call it answers when the preceding assistant
// message has it: Anthropic does not repeat the name, and protocols such as
// Gemini need it.
func (d *requestDecoder) checkToolParts(msg *codec.Message, i int) *codec.Error {
	for j := range msg.Parts {
		p := &msg.Parts[j]
		switch {
		case p.Type == codec.PartToolCall && msg.Role != codec.RoleAssistant:
			return codec.InvalidRequest(blockPos{msg: i, block: j}.path(""), "tool_use blocks belong in assistant messages")
		case p.Type == codec.PartToolResult && msg.Role != codec.RoleUser:
			return codec.InvalidRequest(blockPos{msg: i, block: j}.path(""), "tool_result blocks belong in user messages")
		case p.Type == codec.PartReasoning && msg.Role != codec.RoleAssistant:
			return codec.InvalidRequest(blockPos{msg: i, block: j}.path(""), "thinking and redacted_thinking blocks belong in assistant messages")
		case p.Type == codec.PartToolResult && i > 0:
			p.ToolName = callName(d.req.Messages[i-1].Parts, p.ToolCallID)
		}
	}
	return nil
}

// callName returns the name of the tool call with id among ps, or
// "".
func callName(ps []codec.Part, id string) string {
	for k := range ps {
		if ps[k].Type == codec.PartToolCall && ps[k].ToolCallID == id {
			return ps[k].ToolName
		}
	}
	return ""
}

// role reads messages[i].role. Anthropic has only user and
// assistant turns; system instructions are the top-level system field.
func role(v gjson.Result, i int) (codec.Role, *codec.Error) {
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

// content decodes messages[i].content, a string or an array of blocks, into
// the shared parts array.
func (d *requestDecoder) content(member jsonx.Value, i int) *codec.Error {
	v := member.Shallow()
	if v.Type == gjson.String {
		d.parts = append(d.parts, wire.ValueTextPart(codec.PartText, member))
		return nil
	}
	if !v.IsArray() {
		return wire.WrongType(wire.IndexPath("messages", i)+".content", "string or array", v)
	}
	j := 0
	var err *codec.Error
	for _, member := range jsonx.Members(v.Raw, &d.req.Text) {
		b := member.Result()
		// Most blocks are plain text: read them without block's
		// general collection (plainText).
		if p, ok := wire.PlainText(&d.req.Text, b.Raw, `"text"`); ok {
			d.parts = append(d.parts, p)
			j++
			continue
		}
		if typ := jsonx.Lookup(b.Raw, &d.req.Text, "type"); typ.Str == "server_tool_use" || typ.Str == "web_search_tool_result" {
			// A web search Anthropic ran in an earlier turn: its
			// results are encrypted for Anthropic alone, while the
			// answer that used them stays. Like another family's
			// reasoning, it is dropped and listed.
			d.req.Dropped = append(d.req.Dropped, blockPos{msg: i, block: j}.path(" ("+typ.Str+")"))
			j++
			continue
		}
		var p codec.Part
		p, err = d.block(b, blockPos{msg: i, block: j})
		if err != nil {
			break
		}
		d.parts = append(d.parts, p)
		j++
	}
	return err
}

// system decodes the top-level system prompt: a string, or an array of text
// blocks like those of a message.
func (d *requestDecoder) decodeSystem(v gjson.Result) *codec.Error {
	req := d.req
	// A repeated key replaces the earlier value, as JSON decoders do.
	req.System = req.System[:0]
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		req.System = append(req.System, wire.ValueTextPart(codec.PartText, d.system))
	case v.IsArray():
		req.System = slices.Grow(req.System, jsonx.CountMembers(v, &d.req.Text))
		j := 0
		var err *codec.Error
		for _, member := range jsonx.Members(v.Raw, &d.req.Text) {
			b := member.Result()
			var p codec.Part
			p, err = d.block(b, blockPos{system: true, block: j})
			if err != nil {
				break
			}
			req.System = append(req.System, p)
			j++
		}
		if err != nil {
			return err
		}
	default:
		return wire.WrongType("system", "string or array", v)
	}
	req.SystemRole = codec.RoleSystem
	return nil
}

// metadata decodes the metadata object, whose only field is user_id.
func (d *requestDecoder) metadata(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("metadata", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "user_id": //field:metadata.user_id: hint
			if value.Type != gjson.Null {
				d.req.User, err = wire.ReadString(value, "metadata.user_id")
			}
		default:
			err = wire.UnknownField("metadata." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// stringHint records a string hint field: one that steers the
// provider but not what the model generates, and has no canonical slot.
// Null is absent and not recorded.
func stringHint(req *request, path string, v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wire.WrongType(path, "string", v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// betaHint records Bedrock's anthropic_beta, an array of
// strings, as a hint.
func betaHint(req *request, path string, v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if _, err := wire.ReadStringList(v, path, false, nil, &req.Text); err != nil {
		return err
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// objectHint records an object hint field, like
// stringHint.
func objectHint(req *request, path string, v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// contextManagement reads context_management. Its edits change
// what the model sees of the conversation on Anthropic's servers: context
// editing clears old tool uses (clear_tool_uses_20250919) and compaction
// (compact_20260112) replaces the earlier turns with a summary. No other
// family does either, and translation is always toward another family, so
// such an edit is a capability the upstream lacks: rejected, or dropped
// and reported under the lenient policy. An edit that clears thinking
// (clear_thinking_20251015, which Claude Code sends with keep: all) only
// says which of Anthropic's own thinking blocks stay in its context;
// another family takes earlier reasoning back by its own rules, so that
// edit, and a field without edits, is a hint.
func contextManagement(req *request, v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("context_management", "object", v)
	}
	edits := v.Get("edits")
	switch {
	case edits.Type == gjson.Null:
	case !edits.IsArray():
		return wire.WrongType("context_management.edits", "array", edits)
	default:
		var err *codec.Error
		i := 0
		for _, member := range jsonx.Members(edits.Raw, &req.Text) {
			e := member.Result()
			if typ := e.Get("type"); typ.Type != gjson.String || !strings.HasPrefix(typ.Str, "clear_thinking_") {
				err = wire.UnsupportedField("context_management", "context editing of tool uses and compaction happen on Anthropic's servers, which no other protocol has (edits["+strconv.Itoa(i)+"] is "+strconv.Quote(typ.String())+")") //field:context_management (edits clearing tool uses, compaction): capability
				break
			}
			i++
		}
		if err != nil {
			return err
		}
	}
	req.Dropped = append(req.Dropped, "context_management")
	return nil
}

// rejectNonEmpty rejects an array capability field unless it is
// empty, which asks for nothing.
func rejectNonEmpty(path string, v gjson.Result, why string) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType(path, "array", v)
	case jsonx.CountMembers(v, &jsonx.Arena{}) == 0:
		return nil
	}
	return wire.UnsupportedField(path, why)
}
