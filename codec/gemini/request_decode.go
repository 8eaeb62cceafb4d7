package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// contentPath names a Content in error paths without building the
// string unless an error needs it: contents[i], or the systemInstruction
// key as the client spelled it (index < 0).
type contentPath struct {
	key   string
	index int
}

// String returns the path of the Content.
func (p contentPath) String() string {
	if p.index < 0 {
		return p.key
	}
	return wire.IndexPath(p.key, p.index)
}

// part returns the path of the Content's j-th part.
func (p contentPath) part(j int) string {
	return wire.IndexPath(p.String()+".parts", j)
}

// decodeRequest decodes a generateContent request body. Every part of
// the request (system instruction and all contents) is stored in one
// backing []Part, sub-sliced per message, so that a conversation costs two
// allocations whatever its length (plus one or two per text that holds
// JSON escapes, which gjson unescapes into new strings).
//
//fields:all
func decodeRequest(root gjson.Result, req *request) *codec.Error {
	// If the estimate falls short and the slice grows, the messages
	// decoded so far keep pointing into the old array, whose parts are
	// never modified, so they stay valid.
	parts := wire.PartSlab(req, keyEstimate(root.Raw, `"text"`))
	hasContents := false
	var choice toolChoice
	var err *codec.Error
	for k, member := range jsonx.Members(root.Raw, &req.Text) {
		v := member.Result()
		switch k {
		case "contents": //field:mapped
			if v.Type == gjson.Null {
				continue
			}
			hasContents = true
			parts, err = decodeContents(v, req, parts)
		case "systemInstruction", "system_instruction": //field:systemInstruction: mapped
			parts, err = decodeSystemInstruction(v, k, req, parts)
		case "generationConfig", "generation_config": //field:-
			err = decodeGenerationConfig(v, k, req)
		case "safetySettings", "safety_settings": //field:safetySettings: hint
			// Safety thresholds steer the provider's filters, not what the
			// model generates; no other protocol has a slot for them.
			err = dropHint(v, k, req, "array", gjson.Result.IsArray)
		case "labels": //field:hint
			// Billing labels (Vertex) only tag the request.
			err = dropHint(v, k, req, "object", gjson.Result.IsObject)
		case "serviceTier", "service_tier": //field:serviceTier: hint
			// The service tier is a scheduling hint, as service_tier is for
			// OpenAI and Anthropic.
			err = dropHint(v, k, req, "string", isString)
		case "modelArmorConfig", "model_armor_config": //field:modelArmorConfig: hint
			// Model Armor templates (Vertex) are provider-side filters, like
			// safetySettings.
			err = dropHint(v, k, req, "object", gjson.Result.IsObject)
		case "model": //field:hint
			// Some SDKs repeat the model of the path in the body; the path
			// is what the server uses.
			err = dropHint(v, k, req, "string", isString)
		case "cachedContent", "cached_content": //field:cachedContent: capability
			if v.Type != gjson.Null {
				err = wire.UnsupportedField(k, "cached content is server-side state that other providers cannot read")
			}
		case "tools": //field:mapped
			err = decodeTools(v, k, req)
		case "toolConfig", "tool_config": //field:-
			choice, err = decodeToolConfig(v, k, req)
		default:
			err = wire.UnknownField(k)
		}
		if err != nil {
			break
		}
	}
	wire.KeepParts(req, parts)
	if err != nil {
		return err
	}
	if !hasContents {
		return codec.InvalidRequest("contents", "is required")
	}
	if err := choice.resolve(req); err != nil {
		return err
	}
	return resolveToolResults(req)
}

// isString reports whether v is a JSON string.
func isString(v gjson.Result) bool { return v.Type == gjson.String }

// dropHint records the hint field at path in req.Dropped after
// checking that its value has the expected JSON type; null is absent.
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

// decodeContents decodes the contents array into req.Messages,
// appending the parts to the shared backing slice.
func decodeContents(v gjson.Result, req *request, parts []codec.Part) ([]codec.Part, *codec.Error) {
	if !v.IsArray() {
		return parts, wire.WrongType("contents", "array", v)
	}
	// Every Content in scope holds at least one text part, so the capacity
	// of the parts slice, an estimate of the texts in the request, bounds
	// the number of messages too (see keyEstimate).
	if n := cap(parts) - len(parts); cap(req.Messages) < n {
		req.Messages = make([]codec.Message, 0, n)
	}
	req.Messages = req.Messages[:0]
	var err *codec.Error
	i := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		c := member.Result()
		var msg codec.Message
		msg, parts, err = decodeContent(c, contentPath{key: "contents", index: i}, parts, req)
		if err != nil {
			break
		}
		req.Messages = append(req.Messages, msg)
		i++
	}
	if err == nil && i == 0 {
		err = codec.InvalidRequest("contents", "must not be empty")
	}
	return parts, err
}

// keyEstimate estimates how often key (a quoted JSON key) occurs in
// raw JSON, to pre-size slices without a second parse. Inside a JSON string
// every quote is escaped, so a match is a key except in the rare string
// that ends in an escaped quote and the key's name; nested objects (tool
// payloads) may use the same keys. The estimate can therefore be too high,
// which wastes a little capacity, and is too low only when a key is
// spelled with escapes or a request is out of scope, which makes append
// grow the slice.
func keyEstimate(raw, key string) int {
	return strings.Count(raw, key)
}

// decodeContent decodes one Content of the conversation. Its role is
// "user" or "model"; a missing role is "user", as the API documents.
func decodeContent(c gjson.Result, path contentPath, parts []codec.Part, req *request) (codec.Message, []codec.Part, *codec.Error) {
	msg := codec.Message{Role: codec.RoleUser}
	if !c.IsObject() {
		return msg, parts, wire.WrongType(path.String(), "object", c)
	}
	start := len(parts)
	hasParts := false
	var rawParts gjson.Result
	var err *codec.Error
	for k, member := range jsonx.Members(c.Raw, &req.Text) {
		v := member.Result()
		switch k {
		case "role":
			msg.Role, err = decodeRole(v, path)
		case "parts":
			if v.Type != gjson.Null {
				hasParts = true
				rawParts = v
				parts, err = decodeParts(v, path, parts, req)
			}
		default:
			err = wire.UnknownField(path.String() + "." + k)
		}
		if err != nil {
			break
		}
	}
	if err == nil && msg.Role != codec.RoleAssistant {
		// The role may follow the parts (genai writes parts first), so
		// reasoning is checked once the whole turn is read.
		parts, err = nonModelReasoning(rawParts, path, parts, start, req)
	}
	if err != nil {
		return msg, parts, err
	}
	if len(parts) == start {
		// Gemini itself rejects a turn without parts.
		if !hasParts {
			return msg, parts, codec.InvalidRequest(path.String()+".parts", "is required")
		}
		return msg, parts, codec.InvalidRequest(path.String()+".parts", "must not be empty")
	}
	// A three-index slice, so that appending to one message's parts can
	// never overwrite the next message's.
	msg.Parts = parts[start:len(parts):len(parts)]
	return msg, parts, nil
}

// decodeRole decodes a Content's role; null is absent (user).
func decodeRole(v gjson.Result, path contentPath) (codec.Role, *codec.Error) {
	switch {
	case v.Type == gjson.Null:
		return codec.RoleUser, nil
	case v.Type != gjson.String:
		return codec.RoleUser, wire.WrongType(path.String()+".role", "string", v)
	case v.Str == "user":
		return codec.RoleUser, nil
	case v.Str == "model":
		return codec.RoleAssistant, nil
	}
	return codec.RoleUser, codec.InvalidRequest(path.String()+".role", `must be "user" or "model"`)
}

// decodeSystemInstruction decodes systemInstruction, a Content whose
// role the server ignores, into req.System.
func decodeSystemInstruction(v gjson.Result, key string, req *request, parts []codec.Part) ([]codec.Part, *codec.Error) {
	if v.Type == gjson.Null {
		return parts, nil
	}
	path := contentPath{key: key, index: -1}
	if !v.IsObject() {
		return parts, wire.WrongType(key, "object", v)
	}
	start := len(parts)
	var rawParts gjson.Result
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		switch k {
		case "role":
			if f.Type != gjson.Null && f.Type != gjson.String {
				err = wire.WrongType(key+".role", "string", f)
			}
		case "parts":
			if f.Type != gjson.Null {
				rawParts = f
				parts, err = decodeParts(f, path, parts, req)
			}
		default:
			err = wire.UnknownField(key + "." + k)
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		parts, err = nonModelReasoning(rawParts, path, parts, start, req)
	}
	if err != nil {
		return parts, err
	}
	if len(parts) == start {
		req.System = req.System[:0]
		return parts, nil
	}
	for j := start; j < len(parts); j++ {
		if parts[j].Type != codec.PartText {
			return parts, wire.UnsupportedField(path.part(j-start), "a system instruction holds text only")
		}
	}
	req.System = parts[start:len(parts):len(parts)]
	req.SystemRole = codec.RoleSystem
	return parts, nil
}
