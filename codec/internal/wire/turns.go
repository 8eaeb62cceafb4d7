package wire

import (
	"slices"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// Anthropic's Messages and Bedrock's Converse take strictly alternating
// user and assistant turns, with the system prompt apart. Their encoders
// share how a canonical conversation becomes such turns: consecutive
// messages of one role merge into one turn, system and developer messages
// (hoisted into the system prompt) and messages of the other role that
// write no block do not break a turn, and in a user turn the tool results
// come first (the model requires them right after its calls; text a
// client put before them follows them).

// IsSystemRole reports whether a message of role r belongs in the
// top-level system prompt of a protocol that has no system turns.
func IsSystemRole(r codec.Role) bool {
	return r == codec.RoleSystem || r == codec.RoleDeveloper
}

// CountBlocks returns how many blocks message m, messages[i], becomes in
// a turn of its role and how many of those are tool results, or the error
// that refuses one of its parts.
type CountBlocks func(m *codec.Message, i int) (blocks, results int, err *codec.Error)

// NextTurn returns the turn that starts at msgs[i], which is not a system
// message: the messages up to next, of which those of role write blocks
// blocks, results of them tool results. A turn of no blocks says nothing
// and is left out by the caller; next is where the following turn starts
// (skip system messages there with IsSystemRole).
func NextTurn(msgs []codec.Message, i int, count CountBlocks) (turn []codec.Message, role codec.Role, blocks, results, next int, err *codec.Error) {
	role = msgs[i].Role
	j := i
	for ; j < len(msgs); j++ {
		m := &msgs[j]
		if IsSystemRole(m.Role) {
			continue
		}
		k, r, err := count(m, j)
		if err != nil {
			return nil, role, 0, 0, j, err
		}
		if m.Role != role {
			if k == 0 {
				continue
			}
			break
		}
		blocks += k
		results += r
	}
	return msgs[i:j], role, blocks, results, j, nil
}

// Which blocks of a turn an encoder writes in one pass: a user turn with
// tool results is written in two, the results first.
const (
	AllBlocks = iota
	OnlyResults
	NoResults
)

// TurnBlocks reports which passes write a turn with results tool results:
// OnlyResults then NoResults when it has any, else AllBlocks alone.
func TurnBlocks(results int) []int {
	if results > 0 {
		return resultsFirst
	}
	return allAtOnce
}

var (
	resultsFirst = []int{OnlyResults, NoResults}
	allAtOnce    = []int{AllBlocks}
)

// InPass reports whether pass which of a turn writes part.
func InPass(part *codec.Part, which int) bool {
	return which == AllBlocks || (part.Type == codec.PartToolResult) == (which == OnlyResults)
}

// DropUnsentReasoning records, as "messages[i].content[j] (reasoning)",
// the reasoning parts of the conversation that sends says do not go to the
// upstream (foreign or unsigned reasoning, which Claude would refuse). It
// runs once per encode, before the turns are written, since the turn
// grouping looks at messages twice; system messages are left to the
// system prompt's checks.
func DropUnsentReasoning(req *codec.Request, sends func(part *codec.Part, r codec.Role) bool) {
	for i := range req.Messages {
		m := &req.Messages[i]
		if IsSystemRole(m.Role) {
			continue
		}
		for j := range m.Parts {
			if part := &m.Parts[j]; part.Type == codec.PartReasoning && !sends(part, m.Role) {
				req.Dropped = append(req.Dropped, IndexPath(IndexPath("messages", i)+".content", j)+" (reasoning)")
			}
		}
	}
}

// DecodeMessages decodes v, the messages array of a request of a protocol
// whose turns hold blocks (Anthropic's Messages, Converse), into
// req.Messages, with message decoding messages[i]. The messages are
// counted first so that req.Messages and *parts, one backing array for all
// their parts, are allocated once: message appends each message's parts
// to *parts and slices them from it. Most messages hold one part; a
// request with more grows the backing array (messages decoded before the
// growth keep the old one, which stays valid). *saw is set once the array
// holds a message.
func DecodeMessages(req *Request, v gjson.Result, parts *[]codec.Part, saw *bool, message func(m gjson.Result, i int) (codec.Message, *codec.Error)) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return WrongType("messages", "array", v)
	}
	n := jsonx.CountMembers(v, &req.Text)
	if n == 0 {
		return codec.InvalidRequest("messages", "must contain at least one message")
	}
	*saw = true
	// A repeated key replaces the earlier value, as JSON decoders do.
	req.Messages = slices.Grow(req.Messages[:0], n)
	*parts = PartSlab(req, n)
	i := 0
	var err *codec.Error
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		m := member.Result()
		var msg codec.Message
		msg, err = message(m, i)
		if err != nil {
			break
		}
		req.Messages = append(req.Messages, msg)
		i++
	}
	KeepParts(req, *parts)
	return err
}
