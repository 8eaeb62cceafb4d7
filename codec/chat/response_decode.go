package chat

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeResponse decodes a non-streamed Chat Completions body. Only the
// first choice is read: requests with n other than 1 are rejected, so the
// upstream answers one.
func decodeResponse(root gjson.Result, resp *response) *codec.Error {
	var choices, usage gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(root.Raw, &resp.Text) {
		v := member.Result()
		switch key {
		case "id":
			err = upstreamString(v, "id", &resp.ID)
		case "model":
			err = upstreamString(v, "model", &resp.Model)
		case "created":
			err = upstreamInt(v, "created", &resp.Created)
		case "choices":
			choices = v
		case "usage":
			usage = v
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if err := decodeChoice(choices, resp); err != nil {
		return err
	}
	return decodeUsage(usage, &resp.Usage)
}

// decodeChoice decodes choices[0].
func decodeChoice(choices gjson.Result, resp *response) *codec.Error {
	if !choices.IsArray() {
		return codec.BadUpstream(codec.OpenAIChat, "choices is missing or not an array")
	}
	var choice gjson.Result
	for _, member := range jsonx.Members(choices.Raw, &resp.Text) {
		c := member.Result()
		choice = c
		break
	}
	switch {
	case !choice.Exists():
		return codec.BadUpstream(codec.OpenAIChat, "choices is empty")
	case !choice.IsObject():
		return codec.BadUpstream(codec.OpenAIChat, "choices[0] is not an object")
	}
	var message gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(choice.Raw, &resp.Text) {
		v := member.Result()
		switch key {
		case "message":
			message = v
		case "finish_reason":
			var reason string
			err = upstreamString(v, "finish_reason", &reason)
			resp.StopReason = mapping.FromChatFinishReason(reason)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if err := decodeResponseMessage(message, resp); err != nil {
		return err
	}
	resp.StopReason = toolStop(resp.StopReason, resp.Content)
	return nil
}

// refusalStop returns StopRefusal for a natural end of output that
// holds a refusal: OpenAI ends refusals with "stop", but a
// refusal is its own kind of ending that clients of other protocols are
// told about (Anthropic stop_reason refusal). Other reasons stay s.
func refusalStop(s codec.StopReason, refusal bool) codec.StopReason {
	if refusal && s == mapping.StopEnd {
		return mapping.StopRefusal
	}
	return s
}

// toolStop returns StopToolUse for a natural end of output that holds
// tool calls (some compatible servers finish tool calls with "stop"), and
// s otherwise.
func toolStop(s codec.StopReason, content []codec.Part) codec.StopReason {
	if s != mapping.StopEnd && s != mapping.StopNone {
		return s
	}
	for i := range content {
		if content[i].Type == codec.PartToolCall {
			return mapping.StopToolUse
		}
	}
	return s
}

// decodeResponseMessage decodes choices[0].message: its reasoning, then
// its text, then its refusal, then its audio (decodeAudio), then its tool
// calls, the legacy function_call among them (decodeLegacyCall). Generated
// images (OpenRouter's images) are display only: no client protocol of
// another family carries model-made images in llmbridge's model, so they
// are dropped and listed in resp.Dropped.
func decodeResponseMessage(message gjson.Result, resp *response) *codec.Error {
	if !message.IsObject() {
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message is missing or not an object")
	}
	var content, refusal, calls, reasoning, reasoningAlias, annotations, legacy, audio gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(message.Raw, &resp.Text) {
		v := member.Result()
		switch key {
		case "content":
			content = v
		case "annotations":
			// Search models (and OpenRouter's web plugin) cite pages.
			annotations = v
		case "refusal":
			refusal = v
		case "reasoning_content":
			reasoning = v
		case "reasoning":
			// vLLM and OpenRouter name the same text reasoning; some
			// servers send both names.
			reasoningAlias = v
		case "tool_calls":
			calls = v
		case "function_call":
			legacy = v
		case "audio":
			audio = v
		case "images":
			if v.IsArray() && len(v.Raw) > 2 {
				resp.Dropped = append(resp.Dropped, "choices[0].message.images (images)")
			}
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	switch {
	case content.Type != gjson.Null && content.Type != gjson.String:
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.content is not a string")
	case refusal.Type != gjson.Null && refusal.Type != gjson.String:
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.refusal is not a string")
	case reasoning.Type != gjson.Null && reasoning.Type != gjson.String:
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.reasoning_content is not a string")
	case reasoningAlias.Type != gjson.Null && reasoningAlias.Type != gjson.String:
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.reasoning is not a string")
	}
	if reasoning.Str == "" {
		reasoning = reasoningAlias
	}
	// Chat reasoning is plain text: no Chat server signs it, so it goes on
	// unsigned (Origin FamilyNone).
	if reasoning.Str != "" {
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartReasoning, Text: reasoning.Str})
	}
	// A refusal comes with content null, or now and then "": the empty
	// string is then no output. Alone, "" is kept, so that an empty answer
	// stays an empty answer rather than becoming null.
	if content.Type == gjson.String && (content.Str != "" || refusal.Type != gjson.String) {
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartText, Text: content.Str,
			Citations: decodeAnnotations(annotations, content.Str)})
	}
	if refusal.Type == gjson.String {
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartRefusal, Text: refusal.Str})
		resp.StopReason = refusalStop(resp.StopReason, true)
	}
	if err := decodeAudio(audio, resp); err != nil {
		return err
	}
	if err := decodeLegacyCall(legacy, resp); err != nil {
		return err
	}
	return decodeResponseToolCalls(calls, resp)
}

// decodeAudio decodes the audio of an answer (audio output,
// modalities ["text", "audio"]): {id, data, transcript, expires_at}.
//
//   - transcript is what the model said, the answer itself: a text part.
//   - id is state: a Chat server wants {"audio": {"id": ...}} back on the
//     assistant message of the next turn instead of the sound. It is kept
//     as an opaquePart of FamilyOpenAIChat (audioState), which goes
//     back to a Chat upstream only.
//   - data, the sound, is display only: no client protocol of another
//     family carries model-made audio in llmbridge's model, so it is
//     dropped and listed in resp.Dropped.
func decodeAudio(v gjson.Result, resp *response) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.audio is not an object")
	}
	var id, transcript, data string
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &resp.Text) {
		f := member.Result()
		switch k {
		case "id":
			err = upstreamString(f, "choices[0].message.audio.id", &id)
		case "transcript":
			err = upstreamString(f, "choices[0].message.audio.transcript", &transcript)
		case "data":
			err = upstreamString(f, "choices[0].message.audio.data", &data)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if transcript != "" {
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartText, Text: transcript})
	}
	if id != "" {
		resp.Content = append(resp.Content, audioState(id))
	}
	if data != "" {
		resp.Dropped = append(resp.Dropped, "choices[0].message.audio.data (audio)")
	}
	return nil
}

// audioState is the opaque part that keeps the id of a Chat audio
// answer: the members to put back on the assistant message, as a JSON
// object.
func audioState(id string) codec.Part {
	b := jsonx.AppendString([]byte(`{"audio":{"id":`), id)
	b = append(b, "}}"...)
	return codec.Part{Type: codec.PartReasoning, Redacted: true, Origin: mapping.FamilyOpenAIChat, Signature: string(b)}
}

// decodeLegacyCall decodes the legacy function_call of an answer
// ({name, arguments}, from servers that predate tool_calls) as a tool
// call. It has no id; legacyCallID stands in, and the client's result
// for it goes back to a Chat upstream as a tool message with that id.
func decodeLegacyCall(v gjson.Result, resp *response) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.function_call is not an object")
	}
	p := codec.Part{Type: codec.PartToolCall, ToolCallID: legacyCallID(resp.ID)}
	var args string
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &resp.Text) {
		f := member.Result()
		switch k {
		case "name":
			err = upstreamString(f, "choices[0].message.function_call.name", &p.ToolName)
		case "arguments":
			err = upstreamString(f, "choices[0].message.function_call.arguments", &args)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if p.ToolName == "" {
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.function_call has no name")
	}
	var ok bool
	if p.Arguments, ok = arguments(args); !ok {
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.function_call.arguments is not the text of a JSON object")
	}
	resp.Content = append(resp.Content, p)
	return nil
}

// legacyCallID is the id given to a legacy function_call, which has
// none: unique to the response, so that a history of several turns keeps
// its calls apart.
func legacyCallID(responseID string) string {
	if responseID == "" {
		return "call_function"
	}
	return "call_" + responseID
}

// decodeAnnotations reads the url_citation annotations of a message
// whose content is text, converting their character indexes to byte
// offsets. Annotations of other kinds are skipped.
func decodeAnnotations(v gjson.Result, text string) []codec.Citation {
	if !v.IsArray() {
		return nil
	}
	var cs []codec.Citation
	for _, member := range jsonx.Members(v.Raw, nil) {
		a := member.Result()
		if c, start, end, ok := wire.ChatCitation(a); ok {
			c.Start, c.End = wire.ByteIndex(text, start), wire.ByteIndex(text, end)
			cs = append(cs, c)
		}
	}
	return cs
}

// decodeResponseToolCalls appends the tool calls of choices[0].message,
// with their arguments string unquoted into Arguments.
func decodeResponseToolCalls(calls gjson.Result, resp *response) *codec.Error {
	switch {
	case calls.Type == gjson.Null:
		return nil
	case !calls.IsArray():
		return codec.BadUpstream(codec.OpenAIChat, "choices[0].message.tool_calls is not an array")
	}
	var err *codec.Error
	idx := -1
	for _, member := range jsonx.Members(calls.Raw, &resp.Text) {
		idx++
		c := member.Result()
		path := wire.IndexPath("choices[0].message.tool_calls", idx)
		if !c.IsObject() {
			err = codec.BadUpstream(codec.OpenAIChat, path+" is not an object")
			break
		}
		p := codec.Part{Type: codec.PartToolCall}
		var typ, args string
		for k, member := range jsonx.Members(c.Raw, &resp.Text) {
			v := member.Result()
			switch k {
			case "id":
				err = upstreamString(v, path+".id", &p.ToolCallID)
			case "type":
				err = upstreamString(v, path+".type", &typ)
			case "function":
				for fk, member := range jsonx.Members(v.Raw, &resp.Text) {
					fv := member.Result()
					switch fk {
					case "name":
						err = upstreamString(fv, path+".function.name", &p.ToolName)
					case "arguments":
						err = upstreamString(fv, path+".function.arguments", &args)
					}
					if err != nil {
						break
					}
				}
			}
			if err != nil {
				break
			}
		}
		switch {
		case err != nil:
		case typ != "" && typ != "function":
			err = clientAction(path, typ)
		case p.ToolCallID == "" || p.ToolName == "":
			err = codec.BadUpstream(codec.OpenAIChat, path+" has no id or no function name")
		default:
			var ok bool
			if p.Arguments, ok = arguments(args); !ok {
				err = codec.BadUpstream(codec.OpenAIChat, path+".function.arguments is not the text of a JSON object")
			}
		}
		resp.Content = append(resp.Content, p)
		if err != nil {
			break
		}
	}
	return err
}

// clientAction is the error for a tool call of a type other than
// function (a custom tool's call, types added later): a call the client
// must run, which llmbridge's model has no slot for. Dropping it would end
// the turn without the action the model asked for, as though it had
// finished, so the response fails instead.
func clientAction(path, typ string) *codec.Error {
	return codec.BadUpstream(codec.OpenAIChat, path+` is a tool call of type "`+typ+
		`", which the client would have to run and llmbridge cannot translate; leaving it out would end the turn without it`)
}

// decodeUsage decodes the usage object, whose counters already have
// the canonical meaning: prompt_tokens includes cached tokens and
// completion_tokens includes reasoning tokens.
func decodeUsage(v gjson.Result, u *codec.Usage) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return codec.BadUpstream(codec.OpenAIChat, "usage is not an object")
	}
	*u = codec.Usage{Known: true}
	var err *codec.Error
	var hit int64
	for key, member := range jsonx.Members(v.Raw, nil) {
		value := member.Result()
		switch key {
		case "prompt_cache_hit_tokens":
			// DeepSeek's name for cached prompt tokens, which its
			// prompt_tokens include as OpenAI's do.
			err = upstreamInt(value, "usage.prompt_cache_hit_tokens", &hit)
		case "prompt_tokens":
			err = upstreamInt(value, "usage.prompt_tokens", &u.InputTokens)
		case "completion_tokens":
			err = upstreamInt(value, "usage.completion_tokens", &u.OutputTokens)
		case "prompt_tokens_details":
			err = usageDetail(value, "usage.prompt_tokens_details", "cached_tokens", &u.CacheReadTokens)
		case "completion_tokens_details":
			err = usageDetail(value, "usage.completion_tokens_details", "reasoning_tokens", &u.ReasoningTokens)
		}
		if err != nil {
			break
		}
	}
	if u.CacheReadTokens == 0 {
		u.CacheReadTokens = hit
	}
	return err
}

// usageDetail reads the counter named field from a usage details object,
// which may be null or absent.
func usageDetail(v gjson.Result, path, field string, dst *int64) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return codec.BadUpstream(codec.OpenAIChat, path+" is not an object")
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, nil) {
		value := member.Result()
		if key == field && upstreamInt(value, "", dst) != nil {
			// The path is built only for the error: a usage chunk
			// per stream reads this.
			err = upstreamInt(value, path+"."+field, dst)
		}
		if err != nil {
			break
		}
	}
	return err
}

// upstreamString reads an optional string of an upstream response.
func upstreamString(v gjson.Result, path string, dst *string) *codec.Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		*dst = v.Str
		return nil
	}
	return codec.BadUpstream(codec.OpenAIChat, path+" is not a string")
}

// upstreamInt reads an optional integer of an upstream response.
func upstreamInt(v gjson.Result, path string, dst *int64) *codec.Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.Number:
		*dst = v.Int()
		return nil
	}
	return codec.BadUpstream(codec.OpenAIChat, path+" is not a number")
}
