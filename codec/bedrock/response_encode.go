package bedrock

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendConverseResponse appends resp as a Converse response body, with
// the members the AWS SDK's Converse output reads: output.message,
// stopReason, usage and metrics. Converse has neither an id nor a model
// in its responses, so neither is written. Refusals become text, since
// Converse has no refusal block (the refusal is in stopReason
// content_filtered). Reasoning becomes reasoningContent: Claude's own
// signature and redacted content as they are, another family's opaque
// value as a continuation token in reasoningText.signature. Hosted search
// parts and citations have no Converse form and are left out and listed
// in resp.Dropped. Latency is not known across protocols and is 0.
func appendConverseResponse(dst []byte, resp *codec.Response) ([]byte, *codec.Error) {
	for i := range resp.Content {
		part := &resp.Content[i]
		switch part.Type {
		case codec.PartText, codec.PartRefusal, codec.PartServerToolCall, codec.PartServerToolResult:
			continue
		case codec.PartReasoning:
			if !part.Redacted || part.Signature != "" {
				continue
			}
		case codec.PartToolCall:
			if part.ToolName != "" && (!part.HasArguments() || wire.ArgumentsObject(part, jsonx.IsObject)) {
				continue
			}
		}
		return dst, &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
			Message: "content part type " + part.Type.String() + " cannot be expressed in a " + string(codec.Bedrock) + " response"}
	}
	dst = append(dst, `{"output":{"message":{"role":"assistant","content":[`...)
	comma := false
	for i := range resp.Content {
		part := &resp.Content[i]
		switch part.Type {
		case codec.PartServerToolCall, codec.PartServerToolResult:
			resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+" ("+part.Type.String()+")")
			continue
		case codec.PartReasoning:
			dst, comma = appendClientReasoning(dst, part, comma), true
			continue
		case codec.PartToolCall:
			if comma {
				dst = append(dst, ',')
			}
			dst, comma = appendToolUse(dst, part), true
			continue
		}
		if len(part.Citations) > 0 {
			resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+".citations")
		}
		dst, comma = appendBlock(dst, part, comma)
	}
	dst = append(dst, `]}},"stopReason":`...)
	dst = jsonx.AppendString(dst, mapping.ConverseStopReason(toolStop(resp.StopReason, hasToolCall(resp.Content))))
	dst = appendUsage(dst, `,"usage":`, &resp.Usage)
	dst = append(dst, `,"metrics":{"latencyMs":`...)
	dst = jsonx.AppendInt(dst, resp.Latency.InvocationMs)
	dst = append(dst, '}')
	dst = appendStopSequence(dst, resp.StopSequence)
	return append(dst, '}'), nil
}

// appendToolUse appends a toolUse block of a response; a call without an
// id gets a new one, since clients answer by id.
func appendToolUse(dst []byte, part *codec.Part) []byte {
	id := part.ToolCallID
	if id == "" {
		id = wire.NewID("tooluse_")
	}
	dst = append(dst, `{"toolUse":{"toolUseId":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, wire.CallWireName(part))
	dst = append(dst, `,"input":`...)
	dst = wire.AppendArgumentsObject(dst, part)
	return append(dst, "}}"...)
}

// clientOpaque returns the opaque value a client gets for reasoning part
// p: Claude's own signature or redacted content as it is, another
// family's as a continuation token, and "" for unsigned reasoning.
func clientOpaque(p *codec.Part) string {
	switch {
	case p.Signature == "":
		return ""
	case p.Origin == mapping.FamilyAnthropic && (!p.Redacted || wire.CheckBase64("", p.Signature) == nil) && !wire.IsOpaque(p, mapping.FamilyAnthropic):
		return p.Signature
	}
	return string(wire.AppendOpaque(nil, p.Signature, p.Origin, p.Redacted, p.ItemID))
}

// appendClientReasoning appends reasoning part p of a response for a
// client.
func appendClientReasoning(dst []byte, p *codec.Part, comma bool) []byte {
	return appendReasoning(dst, p, clientOpaque(p), comma)
}

// appendUsage appends member (such as `,"usage":`) and the usage object:
// inputTokens excludes cache reads and writes, and totalTokens counts them
// all. Converse requires usage: when none is known every count is zero.
func appendUsage(dst []byte, member string, u *codec.Usage) []byte {
	dst = append(dst, member...)
	dst = append(dst, `{"inputTokens":`...)
	dst = jsonx.AppendInt(dst, u.AnthropicInputTokens())
	dst = append(dst, `,"outputTokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	dst = append(dst, `,"totalTokens":`...)
	dst = jsonx.AppendInt(dst, u.AnthropicInputTokens()+u.CacheReadTokens+u.CacheWriteTokens+u.OutputTokens)
	if u.CacheReadTokens > 0 {
		dst = append(dst, `,"cacheReadInputTokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	}
	if u.CacheWriteTokens > 0 {
		dst = append(dst, `,"cacheWriteInputTokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheWriteTokens)
	}
	return append(dst, '}')
}

// appendStopSequence appends additionalModelResponseFields with the stop
// sequence that ended generation, where Claude models on Bedrock report
// it, when one is known.
func appendStopSequence(dst []byte, seq string) []byte {
	if seq == "" {
		return dst
	}
	dst = append(dst, `,"additionalModelResponseFields":{"stop_sequence":`...)
	dst = jsonx.AppendString(dst, seq)
	return append(dst, '}')
}

// toolStop returns the stop reason a Converse client gets for stop: a
// natural end of an answer that calls tools is tool_use, since Converse
// clients run tools on that stop reason (Chat servers and Gemini end tool
// calls with their plain stop).
func toolStop(stop codec.StopReason, calls bool) codec.StopReason {
	if calls && stop == mapping.StopEnd {
		return mapping.StopToolUse
	}
	return stop
}

// hasToolCall reports whether content holds a tool call.
func hasToolCall(content []codec.Part) bool {
	for i := range content {
		if content[i].Type == codec.PartToolCall {
			return true
		}
	}
	return false
}
