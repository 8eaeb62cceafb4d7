package chat

import (
	"slices"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendResponse encodes resp as a Chat Completions body with every
// field openai-go's ChatCompletion requires. Usage is optional in Chat and
// is omitted when the upstream gave none, rather than reported as zero.
//
// A refusal (StopRefusal) is given as message.refusal with content null,
// following refusalOutput. Reasoning goes into reasoning_content, the
// extension field of DeepSeek and other compatible servers that Chat clients
// show as thinking; an opaque value goes there too, as a continuation
// envelope after its part's text, since Chat has no slot for it and the
// client must replay it for the next turn to reach the issuing upstream.
func appendResponse(dst []byte, resp *codec.Response) ([]byte, *codec.Error) {
	var buf [1]codec.Part
	content, err := wire.RefusalOutput(resp, codec.OpenAIChat, buf[:0])
	if err != nil {
		return dst, err
	}
	texts, refusals, calls, reasoning, cites := 0, 0, 0, 0, 0
	for i := range content {
		switch content[i].Type {
		case codec.PartText:
			texts++
			cites += len(content[i].Citations)
		case codec.PartRefusal:
			refusals++
		case codec.PartToolCall:
			calls++
		case codec.PartReasoning:
			reasoning++
		case codec.PartServerToolCall, codec.PartServerToolResult:
			// Chat has no item for a search the upstream ran; the
			// answer and its citations (annotations) carry what it
			// found.
			resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+" ("+content[i].Type.String()+")")
		default:
			return dst, cannotRespond(wire.IndexPath("content", i))
		}
	}
	dst = slices.Grow(dst, responseSizeHint(resp))

	dst = append(dst, `{"id":`...)
	if resp.ID != "" {
		dst = jsonx.AppendString(dst, resp.ID)
	} else {
		dst = jsonx.AppendString(dst, wire.NewID("chatcmpl-"))
	}
	dst = append(dst, `,"object":"chat.completion","created":`...)
	if resp.Created != 0 {
		dst = jsonx.AppendInt(dst, resp.Created)
	} else {
		dst = jsonx.AppendInt(dst, time.Now().Unix())
	}
	dst = append(dst, `,"model":`...)
	dst = jsonx.AppendString(dst, resp.Model)

	dst = append(dst, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	if texts > 0 {
		dst = appendJoined(dst, content, false)
	} else {
		dst = append(dst, "null"...)
	}
	if reasoning > 0 {
		dst = appendReasoningContent(append(dst, `,"reasoning_content":`...), content)
	}
	if cites > 0 {
		dst = appendAnnotations(append(dst, `,"annotations":`...), content)
	}
	dst = append(dst, `,"refusal":`...)
	if refusals > 0 {
		dst = appendJoinedRefusal(dst, content)
	} else {
		dst = append(dst, "null"...)
	}
	if calls > 0 {
		dst = appendResponseToolCalls(append(dst, `,"tool_calls":`...), content)
	}
	if reasoning > 0 {
		dropUnfollowedSignatures(resp, content)
	}
	dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	dst = jsonx.AppendString(dst, mapping.ChatFinishReason(toolStop(resp.StopReason, content)))
	dst = append(dst, "}]"...)

	if resp.Usage.Known {
		dst = appendUsage(dst, &resp.Usage)
	}
	return append(dst, '}'), nil
}

// responseSizeHint estimates the encoded size of resp.
func responseSizeHint(resp *codec.Response) int {
	n := 512 + len(resp.ID) + len(resp.Model)
	for _, p := range resp.Content {
		n += p.TextSize() + p.ArgumentsSize() + len(p.ToolCallID) + len(p.ToolName) + 64
		n += (len(p.Signature)+len(p.ItemID))*4/3 + len(mapping.EnvelopePrefix) + 16
	}
	return n
}

// appendReasoningContent appends the reasoning parts' texts as one
// reasoning_content string. Their opaque values go with the tool call that
// follows them (appendResponseToolCalls), never into text a person
// reads.
func appendReasoningContent(dst []byte, parts []codec.Part) []byte {
	dst = append(dst, '"')
	first := true
	for j := range parts {
		p := &parts[j]
		if p.Type != codec.PartReasoning || !p.HasText() {
			continue
		}
		if !first {
			// Separate parts as paragraphs, as the stream does.
			dst = append(dst, `\n\n`...)
		}
		first = false
		dst = jsonx.AppendStringBody(dst, p.TextValue())
	}
	return append(dst, '"')
}

// appendUsage appends the usage object. Chat has no counter for cache
// writes; they remain part of prompt_tokens.
func appendUsage(dst []byte, u *codec.Usage) []byte {
	dst = append(dst, `,"usage":{"prompt_tokens":`...)
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"completion_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	dst = append(dst, `,"total_tokens":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	dst = append(dst, `},"completion_tokens_details":{"reasoning_tokens":`...)
	dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	return append(dst, "}}"...)
}

// cannotRespond is the error for response content a Chat client cannot
// be given. It is a 502 like an invalid upstream answer: the request was
// valid, but the answer cannot be carried to this client.
func cannotRespond(path string) *codec.Error {
	return &codec.Error{
		Status:  502,
		Kind:    mapping.ErrBadGateway,
		Param:   path,
		Message: "this content part type cannot be expressed in the " + string(codec.OpenAIChat) + " protocol",
	}
}
