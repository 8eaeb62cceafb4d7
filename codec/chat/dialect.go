package chat

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// dialectRole is the role message of role r is written with: developer
// instructions as system toward a server without the developer role.
func dialectRole(d *codec.Dialect, r codec.Role) codec.Role {
	if r == codec.RoleDeveloper && d != nil && d.NoDeveloperRole {
		return codec.RoleSystem
	}
	return r
}

// maxTokensKey is the key, with its leading comma, of the output limit.
func maxTokensKey(d *codec.Dialect) string {
	if d != nil && d.MaxTokens {
		return `,"max_tokens":`
	}
	return `,"max_completion_tokens":`
}

// The values of Dialect.ReasoningField other than reasoning_content's ""
// (or "reasoning_content").
const (
	reasoning     = "reasoning"
	reasoningNone = "none"
)

// reasoningKey is the start of the assistant message field that carries
// reasoning text, with its leading comma and the string's opening quote;
// "" when the server takes none (ReasoningField "none").
func reasoningKey(d *codec.Dialect) string {
	if d != nil {
		switch d.ReasoningField {
		case reasoning:
			return `,"reasoning":"`
		case reasoningNone:
			return ""
		}
	}
	return `,"reasoning_content":"`
}

// noReasoning reports that no reasoning field is written, so that
// unsigned reasoning is dropped as well as signed.
func noReasoning(d *codec.Dialect) bool {
	return d != nil && d.ReasoningField == reasoningNone
}

// emptyReasoning reports that an assistant message of a turn that made
// tool calls, with no reasoning text of its own, gets an empty reasoning
// field (ReasoningInToolLoop).
func emptyReasoning(d *codec.Dialect) bool {
	return d != nil && d.ReasoningInToolLoop && d.ReasoningField != reasoningNone
}

// iDs is the tool-call id format of the server.
func iDs(d *codec.Dialect) codec.IDFormat {
	if d == nil {
		return codec.IDAny
	}
	return d.ToolCallIDs
}

// appendStream appends the fields of a streamed request: stream, and
// stream_options asking for usage unless the server rejects it.
func appendStream(d *codec.Dialect, dst []byte) []byte {
	if d != nil && d.NoStreamOptions {
		return append(dst, `,"stream":true`...)
	}
	return append(dst, `,"stream":true,"stream_options":{"include_usage":true}`...)
}

// appendToolCallID appends tool-call id as a JSON string in format f.
func appendToolCallID(dst []byte, id string, f codec.IDFormat) []byte {
	if f == codec.IDAlnum9 {
		dst = append(dst, '"')
		dst = appendAlnum9ID(dst, id)
		return append(dst, '"')
	}
	return jsonx.AppendString(dst, id)
}

// alnum62 are the digits of the ids appendAlnum9ID writes.
const alnum62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// isAlnum9 reports whether id is nine characters of a-z, A-Z and 0-9, the
// only tool-call id Mistral takes ("Tool call id was call_… but must be
// a-z, A-Z, 0-9, with a length of 9") and the form of the ids it issues.
func isAlnum9(id string) bool {
	if len(id) != 9 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

// appendAlnum9ID appends id in IDAlnum9 form: unchanged when it already has
// it (such as an id Mistral issued), else nine base-62 digits of a 64-bit
// hash of the whole id (FNV-1a, then MurmurHash3's finaliser so that ids
// differing only in their last bytes spread over all digits). The mapping
// depends on nothing but the id: a call and the result that names it, sent
// in different requests and through different instances, map to the same
// value. 62^9 is about 1.4e16, so two ids of one conversation collide with
// a probability of about n²/2.7e16 (4e-7 for 100,000 ids).
func appendAlnum9ID(dst []byte, id string) []byte {
	if isAlnum9(id) {
		return append(dst, id...)
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	var b [9]byte
	for k := len(b) - 1; k >= 0; k-- {
		b[k] = alnum62[h%62]
		h /= 62
	}
	return append(dst, b[:]...)
}

// chatToolTurn reports whether the turn that msgs start in (up to the next
// user message that holds no tool result) has an assistant message with
// tool calls.
func chatToolTurn(msgs []codec.Message) bool {
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case codec.RoleUser:
			if !hasResults(m.Parts) {
				return false
			}
		case codec.RoleAssistant:
			for j := range m.Parts {
				if m.Parts[j].Type == codec.PartToolCall {
					return true
				}
			}
		}
	}
	return false
}

// bridgeMessage is the assistant message written between a tool
// message and a user message toward a server that takes no user message
// right after a tool message (Dialect.AssistantAfterTool). It says only
// what happened: the model received the results.
const bridgeMessage = `{"role":"assistant","content":"Tool results received."}`
