package mapping

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
)

// Family is the provider family whose servers issued an opaque reasoning
// value (a signature, encrypted reasoning or a thought signature). Only the
// family that issued such a value can verify it, so it travels with the
// value and decides where the value may be sent back.
type Family uint8

// Provider families.
const (
	// FamilyNone means no family is known (an unsigned reasoning text).
	FamilyNone Family = iota
	// FamilyOpenAI issued Responses encrypted_content.
	FamilyOpenAI
	// FamilyAnthropic issued Anthropic thinking signatures and
	// redacted_thinking data (Anthropic API and Claude on Vertex AI).
	FamilyAnthropic
	// FamilyGemini issued Gemini thoughtSignatures (Gemini API and Vertex
	// AI).
	FamilyGemini
	// FamilyOpenAIChat issued state of a Chat Completions server that its
	// clients send back on the assistant message (the id of an audio
	// answer). Chat servers sign no reasoning.
	FamilyOpenAIChat
	familyCount
)

var familyNames = [...]string{"none", "openai", "anthropic", "gemini", "openai-chat"}

// String returns the family's lower-case name, for errors and logs.
func (f Family) String() string {
	if f < familyCount {
		return familyNames[f]
	}
	return "unknown"
}

// Continuation is the opaque state of one reasoning part that a client
// protocol has no native slot for, or that comes from another family than
// the client's: the value itself, who issued it, and what it is.
//
// llmbridge keeps no conversation state. Instead it hands the client a
// continuation envelope - a versioned, self-describing token - in the
// client's own opaque slot (Anthropic signature, Responses
// encrypted_content, Gemini thoughtSignature) or, where the client protocol
// has none (Chat), in the id of the tool call that follows the reasoning.
// The client replays it in its history like any other reasoning, and
// llmbridge unwraps it before the upstream sees it. docs/reasoning-envelope.md
// describes the format for readers of the wire.
type Continuation struct {
	// Origin is the family that issued Signature.
	Origin Family
	// Redacted marks Anthropic redacted_thinking, whose data is Signature.
	Redacted bool
	// ItemID is the provider's id of the reasoning item (Responses rs_...),
	// or "".
	ItemID string
	// Signature is the opaque value, byte for byte as the upstream sent it.
	Signature string
	// Text is the reasoning text the signature covers, carried only where
	// the client may not replay the visible reasoning text exactly (Gemini
	// clients drop thought parts from their history) and the issuer
	// verifies the text with the signature (Anthropic); "" otherwise.
	Text string
}

// Continuation envelope format, version 1.
//
// Token form (what goes in an opaque slot):
//
//	llmbridge.v1.<base64url without padding of the payload>
//
// The payload is binary: one byte Origin, one byte flags (bit 0: Redacted,
// bit 1: Text present), one byte length n of ItemID (at most 255), n bytes
// ItemID, then - when Text is present - its length as a uvarint and its
// bytes, then Signature to the end. The whole token is at most
// MaxEnvelopeSize bytes.
//
// Tool-call id form (Chat, which has no opaque slot: its clients drop
// reasoning_content from the history they send back, but always send
// tool-call ids back as they got them):
//
//	<the call's own id> "~" token ["~" token]...
//
// Each token is one reasoning part that came before the call (since the
// previous call), in order. An Anthropic part carries its text in the
// token, since the signature covers it. Reasoning that no tool call
// follows has no continuation toward a Chat client: only an open tool loop
// needs the reasoning back (Anthropic and Gemini 3 require it there; they
// ignore or do not require it in earlier turns).
//
// Text form (in Chat reasoning_content; read, so that histories holding it
// keep working, and never written):
//
//	"\n\n[[" token "]]\n\n"
//
// A decoder finds "[[llmbridge.v1." markers, strips each with the blank
// lines around it (which clients may have trimmed), and assigns the
// reasoning text before it to the continuation it closes. Envelope tokens
// are never written into text a person reads.
const (
	// EnvelopePrefix starts every continuation token.
	EnvelopePrefix = "llmbridge.v1."
	// MaxEnvelopeSize bounds a token's length: large enough for any
	// signature or encrypted reasoning seen in practice, small enough that a
	// hostile history cannot make llmbridge decode megabytes per part.
	MaxEnvelopeSize = 1 << 20

	envelopeOpen  = "[[" + EnvelopePrefix
	envelopeClose = "]]"

	// idSeparator separates a tool-call id from the envelope tokens
	// appended to it; it is in neither the base64url alphabet nor the ids
	// providers issue.
	idSeparator = "~"
	idMarker    = idSeparator + EnvelopePrefix
)

// Errors of ParseContinuation.
var (
	// ErrEnvelopeTooLarge reports a token over MaxEnvelopeSize.
	ErrEnvelopeTooLarge = errors.New("llmbridge continuation envelope exceeds 1 MiB")
	// ErrEnvelopeMalformed reports a token that is not a valid version 1
	// envelope.
	ErrEnvelopeMalformed = errors.New("malformed llmbridge continuation envelope")
)

// IsEnvelope reports whether s is in token form (it may still be
// malformed; ParseContinuation says).
func IsEnvelope(s string) bool { return strings.HasPrefix(s, EnvelopePrefix) }

// AppendEnvelope appends c in token form to dst. An ItemID longer than 255
// bytes is not representable and is left out (no provider uses such ids).
func AppendEnvelope(dst []byte, c Continuation) []byte {
	id := c.ItemID
	if len(id) > 255 {
		id = ""
	}
	var flags byte
	if c.Redacted {
		flags |= 1
	}
	if c.Text != "" {
		flags |= 2
	}
	payload := make([]byte, 0, 3+len(id)+binary.MaxVarintLen64+len(c.Text)+len(c.Signature))
	payload = append(payload, byte(c.Origin), flags, byte(len(id)))
	payload = append(payload, id...)
	if c.Text != "" {
		payload = binary.AppendUvarint(payload, uint64(len(c.Text)))
		payload = append(payload, c.Text...)
	}
	payload = append(payload, c.Signature...)
	dst = append(dst, EnvelopePrefix...)
	return base64.RawURLEncoding.AppendEncode(dst, payload)
}

// AppendIDEnvelope appends c to a tool-call id being written (dst ends with
// the id or an earlier envelope of it), in tool-call id form.
func AppendIDEnvelope(dst []byte, c Continuation) []byte {
	return AppendEnvelope(append(dst, idSeparator...), c)
}

// SplitToolCallID splits a tool-call id into the call's own id and the
// envelope tokens appended to it ("" when there are none).
func SplitToolCallID(id string) (own, tokens string) {
	i := strings.Index(id, idMarker)
	if i < 0 {
		return id, ""
	}
	return id[:i], id[i+len(idSeparator):]
}

// ParseIDEnvelopes appends the continuations of tokens (from
// SplitToolCallID) to dst. A token that does not parse is an error: a
// damaged envelope must never reach an upstream.
func ParseIDEnvelopes(dst []Continuation, tokens string) ([]Continuation, error) {
	for tokens != "" {
		tok, rest, _ := strings.Cut(tokens, idSeparator)
		c, err := ParseContinuation(tok)
		if err != nil {
			return dst, err
		}
		dst = append(dst, c)
		tokens = rest
	}
	return dst, nil
}

// ParseContinuation decodes a token made by AppendEnvelope.
func ParseContinuation(token string) (Continuation, error) {
	if len(token) > MaxEnvelopeSize {
		return Continuation{}, ErrEnvelopeTooLarge
	}
	if !IsEnvelope(token) {
		return Continuation{}, ErrEnvelopeMalformed
	}
	payload, err := base64.RawURLEncoding.DecodeString(token[len(EnvelopePrefix):])
	if err != nil || len(payload) < 3 {
		return Continuation{}, ErrEnvelopeMalformed
	}
	origin, flags, n := Family(payload[0]), payload[1], int(payload[2])
	if origin == FamilyNone || origin >= familyCount || flags > 3 || len(payload) < 3+n {
		return Continuation{}, ErrEnvelopeMalformed
	}
	c := Continuation{Origin: origin, Redacted: flags&1 != 0, ItemID: string(payload[3 : 3+n])}
	rest := payload[3+n:]
	if flags&2 != 0 {
		size, k := binary.Uvarint(rest)
		if k <= 0 || size == 0 || size > uint64(len(rest)-k) {
			return Continuation{}, ErrEnvelopeMalformed
		}
		c.Text = string(rest[k : k+int(size)])
		rest = rest[k+int(size):]
	}
	c.Signature = string(rest)
	if c.Signature == "" {
		return Continuation{}, ErrEnvelopeMalformed
	}
	return c, nil
}

// ReasoningSegment is one piece of a reasoning text split by
// SplitReasoningText: Text, closed by the continuation that followed it
// (Signed), or trailing text with no continuation.
type ReasoningSegment struct {
	// Text is the reasoning text before the envelope, with the envelope's
	// blank lines removed.
	Text string
	// Signed reports whether an envelope closed this segment.
	Signed bool
	// Continuation is that envelope's content when Signed.
	Continuation Continuation
}

// SplitReasoningText splits a Chat reasoning text that may hold text-form
// envelopes into its segments, appending them to dst. Text with no envelope
// is one unsigned segment; an empty text gives no segments. A marker that
// does not parse, or is not closed, is an error: a damaged envelope must
// never reach an upstream as reasoning text.
func SplitReasoningText(dst []ReasoningSegment, text string) ([]ReasoningSegment, error) {
	for text != "" {
		i := strings.Index(text, envelopeOpen)
		if i < 0 {
			return append(dst, ReasoningSegment{Text: text}), nil
		}
		end := strings.Index(text[i:], envelopeClose)
		if end < 0 {
			return dst, ErrEnvelopeMalformed
		}
		c, err := ParseContinuation(text[i+2 : i+end])
		if err != nil {
			return dst, err
		}
		before := strings.TrimSuffix(text[:i], "\n\n")
		dst = append(dst, ReasoningSegment{Text: before, Signed: true, Continuation: c})
		text = strings.TrimPrefix(text[i+end+len(envelopeClose):], "\n\n")
	}
	return dst, nil
}
