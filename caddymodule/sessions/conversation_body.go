package sessions

import (
	"strings"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// Ask is what a Responses create body says about conversation
// state.
type Ask struct {
	// Previous is previous_response_id, when it is a non-empty string.
	Previous string
	// Store is the store field, true unless the body says false (the
	// Responses API stores responses by default).
	Store bool
}

// askKeys are the members ReadAsk reads.
var askKeys = [2]string{"previous_response_id", "store"}

// ReadAsk reads previous_response_id and store from a
// Responses create body. A malformed body or field reads as absent: the
// codec rejects it with the precise error. Both are read in one skim of
// the body's top level (codec.ReadTopMembers): gjson's Get walked every
// byte of a megabyte body, once per member.
func ReadAsk(body []byte) Ask {
	ask := Ask{Store: true}
	var v [2]gjson.Result
	if !codec.ReadTopMembers(body, askKeys[:], v[:]) {
		return Ask{}
	}
	if v[0].Type == gjson.String {
		ask.Previous = v[0].Str
	}
	if v[1].Type == gjson.False {
		ask.Store = false
	}
	return ask
}

// ExpandBody appends to dst the Responses create body body continued from
// conversation (a JSON array of input items): previous_response_id is
// removed and input becomes the conversation's items followed by the
// body's own input. Every other member is kept as it was, instructions
// included: as in the Responses API, the instructions of an earlier
// request are not carried over.
func ExpandBody(dst, body, conversation []byte) []byte {
	dst = append(dst, '{')
	first := true
	var input gjson.Result
	gjson.Parse(pool.String(body)).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "previous_response_id":
			return true
		case "input":
			input = v
			return true
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, k.Raw...)
		dst = append(dst, ':')
		dst = append(dst, v.Raw...)
		return true
	})
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, `"input":`...)
	dst = AppendItems(dst, conversation, input)
	return append(dst, '}')
}

// AppendItems appends a JSON array of the items of the array conversation
// followed by the input items of input (a create body's input: an array
// of items, or a string standing for one user message). The items are
// copied as the arrays hold them, between their brackets: reading each
// item again would be a walk of the whole conversation per request.
func AppendItems(dst, conversation []byte, input gjson.Result) []byte {
	dst = append(dst, '[')
	items := arrayItems(pool.String(conversation))
	dst = append(dst, items...)
	more := items != ""
	switch {
	case input.Type == gjson.String:
		if more {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":"user","content":`...)
		dst = append(dst, input.Raw...)
		dst = append(dst, '}')
	case input.IsArray():
		if in := arrayItems(input.Raw); in != "" {
			if more {
				dst = append(dst, ',')
			}
			dst = append(dst, in...)
		}
	}
	return append(dst, ']')
}

// arrayItems returns what the JSON array raw holds between its brackets,
// without the whitespace around it: "" for an empty array or anything but
// an array.
func arrayItems(raw string) string {
	raw = strings.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return ""
	}
	return strings.TrimSpace(raw[1 : len(raw)-1])
}

// inputKey is the member AppendConversation reads.
var inputKey = [...]string{"input"}

// AppendConversation appends the conversation of an answered request: the
// input items of body (a create body) followed by output, the JSON array
// of the answer's output items.
func AppendConversation(dst, body []byte, output string) []byte {
	var input [1]gjson.Result
	codec.ReadTopMembers(body, inputKey[:], input[:])
	dst = AppendItems(dst, nil, input[0])
	if items := arrayItems(output); items != "" {
		dst[len(dst)-1] = ','
		if dst[len(dst)-2] == '[' {
			dst = dst[:len(dst)-1]
		}
		dst = append(dst, items...)
		dst = append(dst, ']')
	}
	return dst
}

// Answer is the identity and output of a Responses answer,
// read from its body or its terminal stream event.
type Answer struct {
	// ID is the response's id.
	ID string
	// Output is the JSON array of its output items.
	Output string
}

// ReadAnswer reads a Responses response object: its id and
// output when it is complete (status completed or incomplete, the answers
// a conversation can continue from). They alias what resp was read from.
func ReadAnswer(resp gjson.Result) (Answer, bool) {
	id, status, output := resp.Get("id"), resp.Get("status").Str, resp.Get("output")
	if id.Type != gjson.String || id.Str == "" || !output.IsArray() || status != "completed" && status != "incomplete" {
		return Answer{}, false
	}
	return Answer{ID: id.Str, Output: output.Raw}, true
}

// TerminalEvent reports whether an SSE event's name is the event that
// ends a Responses stream with the whole response.
func TerminalEvent(name []byte) bool {
	return string(name) == "response.completed" || string(name) == "response.incomplete"
}
