package wire

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// FamilyOf returns the provider family whose opaque values protocol p
// issues and accepts (Descriptor.Origin).
func FamilyOf(p codec.Protocol) mapping.Family {
	if d := p.Descriptor(); d != nil {
		return d.Origin
	}
	return mapping.FamilyNone
}

// ReadOpaque fills a reasoning part's Signature, Origin, Redacted and
// ItemID from the value a client put in its protocol's opaque slot. native
// is the client protocol's family; path names the slot for errors.
func ReadOpaque(part *codec.Part, value string, native mapping.Family, path string) *codec.Error {
	if value == "" {
		return nil
	}
	if !mapping.IsEnvelope(value) {
		part.Signature, part.Origin = value, native
		return nil
	}
	c, err := mapping.ParseContinuation(value)
	if err != nil {
		return codec.InvalidRequest(path, err.Error())
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

// AppendOpaque appends the continuation token for a reasoning part's opaque
// value, as it goes into a client's opaque slot; dst is unchanged when the
// part has none.
func AppendOpaque(dst []byte, signature string, origin mapping.Family, redacted bool, itemID string) []byte {
	if signature == "" {
		return dst
	}
	return mapping.AppendEnvelope(dst, mapping.Continuation{Origin: origin, Redacted: redacted, ItemID: itemID, Signature: signature})
}

// SignedFor reports whether reasoning part p can be sent to an upstream of
// protocol target with its opaque value.
func SignedFor(p *codec.Part, target codec.Protocol) bool {
	return p.Signature != "" && p.Origin == FamilyOf(target)
}

// RefusalOutput returns the content a client protocol with a refusal slot
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
func RefusalOutput(resp *codec.Response, client codec.Protocol, buf []codec.Part) ([]codec.Part, *codec.Error) {
	if resp.StopReason != mapping.StopRefusal {
		return resp.Content, nil
	}
	n := 0
	for i := range resp.Content {
		switch resp.Content[i].Type {
		case codec.PartRefusal:
			return resp.Content, nil
		case codec.PartText:
			n += len(resp.Content[i].TextValue())
		case codec.PartReasoning:
		default:
			return nil, RefusalError(client, "the upstream refused after producing "+resp.Content[i].Type.String()+" output")
		}
	}
	out := buf[:0]
	var b []byte
	for i := range resp.Content {
		switch p := &resp.Content[i]; p.Type {
		case codec.PartReasoning:
			out = append(out, *p)
		case codec.PartText:
			b = append(b, p.TextValue()...)
		}
	}
	text := string(b)
	if n == 0 {
		text = resp.StopDetails.Explanation
		if text == "" {
			return nil, RefusalError(client, "the upstream refused without any text or explanation")
		}
	}
	return append(out, codec.Part{Type: codec.PartRefusal, Text: text}), nil
}

// RefusalError is the error for a refusal a client protocol cannot be given
// faithfully: the request was valid, so it is a 502.
func RefusalError(client codec.Protocol, why string) *codec.Error {
	return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
		Message: why + "; the refusal cannot be expressed in the " + string(client) + " protocol without inventing or losing content"}
}

// OpaquePart is the canonical form of upstream output llmbridge does not
// translate (an Anthropic compaction or other server tool's block, a
// Responses compaction item or hosted tool's call, types added later):
// what it holds may be state its issuer needs back, so it is kept whole, as
// the opaque value of a redacted reasoning part of family origin. Clients
// carry it in their continuation slot like any signature; it goes back in
// place to an upstream of that family and is dropped toward others, like
// foreign reasoning. Nothing of it is shown.
func OpaquePart(origin mapping.Family, raw string) codec.Part {
	return codec.Part{Type: codec.PartReasoning, Redacted: true, Origin: origin, Signature: strings.Clone(raw)}
}

// IsOpaque reports whether p is an opaquePart of family origin: its opaque
// value is a JSON object, which no signature, redacted data or encrypted
// reasoning is (they are base64).
func IsOpaque(p *codec.Part, origin mapping.Family) bool {
	return p.Origin == origin && strings.HasPrefix(p.Signature, "{")
}
