package codec

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/mapping"
)

// This file holds the rules every codec shares for reasoning parts and
// their opaque values, so that the four codecs cannot drift apart:
//
//   - Toward a client, an opaque value always travels as a continuation
//     envelope (mapping.AppendEnvelope): in the client's own opaque slot
//     (Anthropic thinking signature, Responses encrypted_content, Gemini
//     thoughtSignature) or, for Chat, in the id of the tool call that
//     follows the reasoning (openai_chat_envelope.go). Translation only
//     happens between families, so the value is never the client's own
//     and must say who issued it.
//   - From a client, a slot value that is an envelope is unwrapped into
//     Signature/Origin/Redacted/ItemID; any other non-empty value is the
//     client protocol's own native value (Origin = that family).
//   - Toward an upstream, a reasoning part goes out only in a form that
//     upstream accepts: its Signature only when Origin is the upstream's
//     family; unsigned or foreign reasoning is left out of the upstream
//     request and its path listed in Request.Dropped.

// familyOf returns the provider family whose opaque values protocol p
// issues and accepts.
func familyOf(p Protocol) mapping.Family {
	switch p.Family() {
	case OpenAIResponses:
		return mapping.FamilyOpenAI
	case AnthropicMessages:
		return mapping.FamilyAnthropic
	case Gemini:
		return mapping.FamilyGemini
	}
	return mapping.FamilyNone
}

// readOpaque fills a reasoning part's Signature, Origin, Redacted and
// ItemID from the value a client put in its protocol's opaque slot. native
// is the client protocol's family; path names the slot for errors.
func readOpaque(part *Part, value string, native mapping.Family, path string) *Error {
	if value == "" {
		return nil
	}
	if !mapping.IsEnvelope(value) {
		part.Signature, part.Origin = value, native
		return nil
	}
	c, err := mapping.ParseContinuation(value)
	if err != nil {
		return invalid(path, err.Error())
	}
	part.Signature, part.Origin, part.Redacted = c.Signature, c.Origin, c.Redacted
	if c.ItemID != "" {
		part.ItemID = c.ItemID
	}
	if c.Text != "" {
		// The text the signature covers wins over what the client
		// displayed and replayed (or dropped).
		part.Text = c.Text
	}
	return nil
}

// appendOpaque appends the continuation token for a reasoning part's opaque
// value, as it goes into a client's opaque slot; dst is unchanged when the
// part has none.
func appendOpaque(dst []byte, signature string, origin mapping.Family, redacted bool, itemID string) []byte {
	if signature == "" {
		return dst
	}
	return mapping.AppendEnvelope(dst, mapping.Continuation{Origin: origin, Redacted: redacted, ItemID: itemID, Signature: signature})
}

// signedFor reports whether reasoning part p can be sent to an upstream of
// protocol target with its opaque value.
func signedFor(p *Part, target Protocol) bool {
	return p.Signature != "" && p.Origin == familyOf(target)
}

// refusalOutput returns the content a client protocol with a refusal slot
// (Chat message.refusal, Responses refusal parts) is given for a response:
//
//   - A response that is not a refusal, or whose refusal is already a
//     PartRefusal (it came from such a protocol), is unchanged.
//   - A refusal (StopRefusal) whose output is visible text becomes one
//     refusal part holding that text, flattened in order. Reasoning before
//     it is kept: both client protocols carry reasoning in a slot of its
//     own, so nothing is withdrawn or merged.
//   - A refusal with no visible text takes StopDetails.Explanation as its
//     text; with no explanation either it is an error, since inventing one
//     or answering with a blank success would both mislead the client.
//   - A refusal after tool calls (or any other output) is an error: the
//     client protocol cannot say which of that output the refusal withdrew.
//
// buf is reused for the result when the content changes.
func refusalOutput(resp *Response, client Protocol, buf []Part) ([]Part, *Error) {
	if resp.StopReason != mapping.StopRefusal {
		return resp.Content, nil
	}
	n := 0
	for i := range resp.Content {
		switch resp.Content[i].Type {
		case PartRefusal:
			return resp.Content, nil
		case PartText:
			n += len(resp.Content[i].Text)
		case PartReasoning:
		default:
			return nil, refusalError(client, "the upstream refused after producing "+resp.Content[i].Type.String()+" output")
		}
	}
	out := buf[:0]
	var b []byte
	for i := range resp.Content {
		switch p := &resp.Content[i]; p.Type {
		case PartReasoning:
			out = append(out, *p)
		case PartText:
			b = append(b, p.Text...)
		}
	}
	text := string(b)
	if n == 0 {
		text = resp.StopDetails.Explanation
		if text == "" {
			return nil, refusalError(client, "the upstream refused without any text or explanation")
		}
	}
	return append(out, Part{Type: PartRefusal, Text: text}), nil
}

// refusalError is the error for a refusal a client protocol cannot be given
// faithfully: the request was valid, so it is a 502.
func refusalError(client Protocol, why string) *Error {
	return &Error{Status: 502, Kind: mapping.ErrBadGateway,
		Message: why + "; the refusal cannot be expressed in the " + string(client) + " protocol without inventing or losing content"}
}

// opaquePart is the canonical form of upstream output llmbridge does not
// translate (an Anthropic compaction or other server tool's block, a
// Responses compaction item or hosted tool's call, types added later):
// what it holds may be state its issuer needs back, so it is kept whole, as
// the opaque value of a redacted reasoning part of family origin. Clients
// carry it in their continuation slot like any signature; it goes back in
// place to an upstream of that family and is dropped toward others, like
// foreign reasoning. Nothing of it is shown.
func opaquePart(origin mapping.Family, raw string) Part {
	return Part{Type: PartReasoning, Redacted: true, Origin: origin, Signature: strings.Clone(raw)}
}

// isOpaque reports whether p is an opaquePart of family origin: its opaque
// value is a JSON object, which no signature, redacted data or encrypted
// reasoning is (they are base64).
func isOpaque(p *Part, origin mapping.Family) bool {
	return p.Origin == origin && strings.HasPrefix(p.Signature, "{")
}

// OpaqueKind returns the kind of upstream output that the opaque value of a
// reasoning part (Part.Signature, or the Signature of an EventPartStop)
// keeps whole, for logs and metrics: its "type" member (an Anthropic block,
// a Responses item), else its first member that is not thought metadata (a
// Gemini part's data, a Chat answer's audio). It returns "" for a value
// that is not such output: a signature, redacted or encrypted reasoning.
func OpaqueKind(signature string) string {
	if !strings.HasPrefix(signature, "{") {
		return ""
	}
	v := gjson.Parse(signature)
	if t := v.Get("type"); t.Type == gjson.String {
		return t.Str
	}
	kind := ""
	v.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "thought", "thoughtSignature", "partMetadata":
			return true
		}
		kind = k.Str
		return false
	})
	return kind
}
