package bedrock

import (
	"math"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeConverseResponse decodes a Converse response body. Converse names
// neither the response nor the model, so ID and Model stay empty (client
// encoders make up an id and report the request's model). Members that
// only describe the call (metrics, trace, performanceConfig, serviceTier)
// are not read.
func decodeConverseResponse(root gjson.Result, resp *response) *codec.Error {
	var message, stopReason, usage, extra gjson.Result
	for key, member := range jsonx.Members(root.Raw, &resp.Text) {
		value := member.Result()
		switch key {
		case "output":
			message = value.Get("message")
		case "stopReason":
			stopReason = value
		case "usage":
			usage = value
		case "additionalModelResponseFields":
			extra = value
		}
	}
	if !message.IsObject() {
		return badUpstream("output.message is not an object")
	}
	if role := message.Get("role"); role.Exists() && role.Str != "assistant" {
		return badUpstream(`output.message.role is not "assistant"`)
	}
	if stopReason.Exists() && stopReason.Type != gjson.String {
		return badUpstream("stopReason is not a string")
	}
	resp.StopReason = mapping.FromConverseStopReason(stopReason.Str)
	resp.StopDetails = stopDetails(stopReason.Str)
	resp.StopSequence = stopSequence(extra)
	var err *codec.Error
	if resp.Usage, err = decodeUsage(usage); err != nil {
		return err
	}
	content := message.Get("content")
	if !content.IsArray() {
		return badUpstream("output.message.content is not an array")
	}
	i := 0
	for _, member := range jsonx.Members(content.Raw, &resp.Text) {
		b := member.Result()
		err = decodeResponseBlock(b, i, resp)
		i++
		if err != nil {
			break
		}
	}
	resp.StopReason = toolStop(resp.StopReason, hasToolCall(resp.Content))
	return err
}

// stopDetails returns the detail of a filter stop: its category is the
// Converse stop reason that says which filter stopped the output.
func stopDetails(reason string) codec.StopDetails {
	switch reason {
	case "guardrail_intervened", "content_filtered":
		return codec.StopDetails{Category: reason}
	}
	return codec.StopDetails{}
}

// stopSequence returns the stop sequence that ended generation, which
// Claude models report in additionalModelResponseFields.stop_sequence.
func stopSequence(extra gjson.Result) string {
	if !extra.IsObject() {
		return ""
	}
	return extra.Get("stop_sequence").Str
}

// decodeResponseBlock decodes content block i of the output message.
func decodeResponseBlock(b gjson.Result, i int, resp *response) *codec.Error {
	key, v, ok := unionMember(b, &resp.Text)
	if !ok {
		return badUpstream(wire.IndexPath("content", i) + " is not a content block")
	}
	switch key {
	case "text":
		if v.Type != gjson.String {
			return badUpstream(wire.IndexPath("content", i) + ".text is not a string")
		}
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartText, Text: v.Str})
	case "toolUse":
		id, name, input := v.Get("toolUseId"), v.Get("name"), v.Get("input")
		if id.Type != gjson.String || name.Type != gjson.String || !input.IsObject() {
			return badUpstream(wire.IndexPath("content", i) + ".toolUse needs toolUseId, name and an input object")
		}
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartToolCall, ToolCallID: id.Str, ToolName: name.Str, Arguments: input.Raw})
	case "reasoningContent":
		p, ok := responseReasoning(v)
		if !ok {
			return badUpstream(wire.IndexPath("content", i) + ".reasoningContent is malformed")
		}
		resp.Content = append(resp.Content, p)
	case "citationsContent":
		// The generated texts are the answer; their citations point into
		// the request's documents, which no other protocol's citations
		// (web pages) can name.
		for _, member := range jsonx.Members(v.Get("content").Raw, &resp.Text) {
			c := member.Result()
			if t := c.Get("text"); t.Type == gjson.String {
				resp.Content = append(resp.Content, codec.Part{Type: codec.PartText, Text: t.Str})
			}
		}
		resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+".citationsContent.citations")
	default:
		return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
			Message: "upstream " + string(codec.Bedrock) + " response: " + key + " output cannot be translated"}
	}
	return nil
}

// responseReasoning reads a reasoningContent block of output: text with
// its signature, or redacted content; both are Claude's.
func responseReasoning(v gjson.Result) (codec.Part, bool) {
	p := codec.Part{Type: codec.PartReasoning}
	if r := v.Get("redactedContent"); r.Exists() {
		if r.Type != gjson.String {
			return p, false
		}
		p.Redacted, p.Signature, p.Origin = true, r.Str, mapping.FamilyAnthropic
		return p, true
	}
	rt := v.Get("reasoningText")
	if !rt.IsObject() {
		return p, false
	}
	p.Text = rt.Get("text").Str
	if sig := rt.Get("signature").Str; sig != "" {
		p.Signature, p.Origin = sig, mapping.FamilyAnthropic
	}
	return p, true
}

// decodeUsage reads a usage object: inputTokens excludes cache reads and
// writes, as Anthropic's input_tokens does (totalTokens is their sum with
// outputTokens). No usage is unknown usage.
func decodeUsage(v gjson.Result) (codec.Usage, *codec.Error) {
	if !v.Exists() || v.Type == gjson.Null {
		return codec.Usage{}, nil
	}
	if !v.IsObject() {
		return codec.Usage{}, badUpstream("usage is not an object")
	}
	var n [4]int64
	for k, name := range [...]string{"inputTokens", "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"} {
		c := v.Get(name)
		if !c.Exists() || c.Type == gjson.Null {
			continue
		}
		if c.Type != gjson.Number || c.Num < 0 || c.Num != math.Trunc(c.Num) {
			return codec.Usage{}, badUpstream("usage." + name + " is not a count")
		}
		n[k] = c.Int()
	}
	return mapping.FromAnthropicUsage(n[0], n[3], n[2], n[1], 0), nil
}

// badUpstream is the error for a response that is not valid Converse.
func badUpstream(why string) *codec.Error {
	return codec.BadUpstream(codec.Bedrock, why)
}
