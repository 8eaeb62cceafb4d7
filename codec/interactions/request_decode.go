package interactions

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// decodeRequest decodes a create-interaction body. The conversation's
// parts are kept in one backing array, sub-sliced per message.
//
//fields:all
func decodeRequest(root gjson.Result, req *request) *codec.Error {
	hasInput := false
	var f format
	var err *codec.Error
	for k, member := range jsonx.Members(root.Raw, &req.Text) {
		v := member.Result()
		switch k {
		case "model": //field:mapped
			err = wire.ReadOptString(v, k, &req.Model)
		case "input": //field:mapped
			if v.Type != gjson.Null {
				hasInput = true
				err = decodeInput(v, req)
			}
		case "system_instruction": //field:mapped
			err = decodeSystemInstruction(v, k, req)
		case "developer_instructions": //field:mapped
			// The name @google/genai's types give system_instruction's
			// successor; the same instructions.
			err = decodeSystemInstruction(v, k, req)
		case "tools": //field:mapped
			err = decodeTools(v, req)
		case "generation_config": //field:-
			err = decodeGenerationConfig(v, req)
		case "response_format": //field:mapped
			f.format, f.formatKey = v, k
		case "response_mime_type": //field:capability
			err = wire.ReadOptString(v, k, &f.mime)
		case "stream": //field:mapped
			var b codec.OptBool
			err = wire.ReadOptBool(v, k, &b)
			req.Stream = b.Value
		case "store": //field:hint
			// Whether Google keeps the interaction: a translated request
			// is kept, if at all, by the HTTP layer, which reads store
			// itself.
			err = dropHint(v, k, req, "boolean", isBool)
		case "safety_settings": //field:hint
			// Safety thresholds steer the provider's filters, not what
			// the model generates; no other protocol has a slot for them.
			err = dropHint(v, k, req, "array", gjson.Result.IsArray)
		case "labels": //field:hint
			// Billing labels only tag the request.
			err = dropHint(v, k, req, "object", gjson.Result.IsObject)
		case "service_tier": //field:hint
			// A scheduling hint, as service_tier is for OpenAI and Anthropic.
			err = dropHint(v, k, req, "string", isString)
		case "previous_interaction_id": //field:capability
			err = wire.RejectUnlessNull(v, k, "a stored interaction is server-side state that other providers cannot read")
		case "background": //field:capability
			if v.Type == gjson.True {
				err = wire.UnsupportedField(k, "background interactions run on Google's servers only")
			} else if v.Type != gjson.False && v.Type != gjson.Null {
				err = wire.WrongType(k, "boolean", v)
			}
		case "agent", "agent_config": //field:capability
			err = wire.RejectUnlessNull(v, k, "Google's managed agents (Deep Research and others) run on Google's servers only")
		case "cached_content": //field:capability
			err = wire.RejectUnlessNull(v, k, "cached content is server-side state that other providers cannot read")
		case "response_modalities", "speech_config", "environment", "continuation_token", "webhook_config": //field:response_modalities, speech_config, environment, ...: capability
			err = wire.RejectUnlessNull(v, k, "it has no equivalent in other protocols")
		default:
			err = wire.UnknownField(k)
		}
		if err != nil {
			return err
		}
	}
	if !hasInput {
		return codec.InvalidRequest("input", "is required")
	}
	return f.resolve(req)
}

// isString reports whether v is a JSON string.
func isString(v gjson.Result) bool { return v.Type == gjson.String }

// isBool reports whether v is true or false.
func isBool(v gjson.Result) bool { return v.Type == gjson.True || v.Type == gjson.False }

// dropHint records the hint field at path in req.Dropped after checking
// that its value has the expected JSON type; null is absent.
func dropHint(v gjson.Result, path string, req *request, want string, ok func(gjson.Result) bool) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !ok(v) {
		return wire.WrongType(path, want, v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// decodeSystemInstruction reads system_instruction (or its successor
// developer_instructions, named path): a string, as the API defines it,
// or content (a text object or a list of them), which clients written for
// generateContent send.
func decodeSystemInstruction(v gjson.Result, path string, req *request) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		if v.Str != "" {
			p := wire.TextPart(codec.PartText, v)
			req.System = append(req.System, p)
		}
		req.SystemRole = codec.RoleSystem
		return nil
	case v.IsObject(), v.IsArray():
		var parts []codec.Part
		var err *codec.Error
		parts, err = decodeContents(v, path, "", req, parts)
		if err != nil {
			return err
		}
		for i := range parts {
			if parts[i].Type != codec.PartText {
				return wire.UnsupportedField(wire.IndexPath(path, i), "a system instruction holds text only")
			}
		}
		req.System = append(req.System, parts...)
		req.SystemRole = codec.RoleSystem
		return nil
	}
	return wire.WrongType(path, "string", v)
}
