package caddymodule

import (
	"strings"
	"unsafe"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// conversationAsk is what a Responses create body says about conversation
// state.
type conversationAsk struct {
	// previous is previous_response_id, when it is a non-empty string.
	previous string
	// store is the store field, true unless the body says false (the
	// Responses API stores responses by default).
	store bool
}

// conversationKeys are the members readConversationAsk reads.
var conversationKeys = [2]string{"previous_response_id", "store"}

// readConversationAsk reads previous_response_id and store from a
// Responses create body. A malformed body or field reads as absent: the
// codec rejects it with the precise error.
func readConversationAsk(body []byte) conversationAsk {
	ask := conversationAsk{store: true}
	var v [2]gjson.Result
	if !codec.ReadTopMembers(body, conversationKeys[:], v[:]) {
		return conversationAsk{}
	}
	if v[0].Type == gjson.String {
		ask.previous = v[0].Str
	}
	if v[1].Type == gjson.False {
		ask.store = false
	}
	return ask
}

// expandBody appends to dst the Responses create body body continued from
// conversation (a JSON array of input items): previous_response_id is
// removed and input becomes the conversation's items followed by the
// body's own input. Every other member is kept as it was, instructions
// included: as in the Responses API, the instructions of an earlier
// request are not carried over.
func expandBody(dst, body, conversation []byte) []byte {
	dst = append(dst, '{')
	first := true
	var input gjson.Result
	gjson.Parse(bytesString(body)).ForEach(func(k, v gjson.Result) bool {
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
	dst = appendItems(dst, conversation, input)
	return append(dst, '}')
}

// appendItems appends a JSON array of the items of the array conversation
// followed by the input items of input (a create body's input: an array
// of items, or a string standing for one user message).
func appendItems(dst, conversation []byte, input gjson.Result) []byte {
	dst = append(dst, '[')
	n := 0
	next := func() {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
	}
	gjson.Parse(bytesString(conversation)).ForEach(func(_, item gjson.Result) bool {
		next()
		dst = append(dst, item.Raw...)
		return true
	})
	switch {
	case input.Type == gjson.String:
		next()
		dst = append(dst, `{"role":"user","content":`...)
		dst = append(dst, input.Raw...)
		dst = append(dst, '}')
	case input.IsArray():
		input.ForEach(func(_, item gjson.Result) bool {
			next()
			dst = append(dst, item.Raw...)
			return true
		})
	}
	return append(dst, ']')
}

// appendConversation appends the conversation of an answered request: the
// input items of body (a create body) followed by output, the JSON array
// of the answer's output items.
func appendConversation(dst, body []byte, output string) []byte {
	dst = appendItems(dst, nil, gjson.Get(bytesString(body), "input"))
	if items := strings.TrimSpace(output); len(items) > 2 {
		inner := strings.TrimSpace(items[1 : len(items)-1])
		if len(inner) > 0 {
			if len(dst) > 2 {
				dst[len(dst)-1] = ','
			} else {
				dst = dst[:len(dst)-1]
			}
			dst = append(dst, inner...)
			dst = append(dst, ']')
		}
	}
	return dst
}

// bytesString returns b as a string without copying it, for gjson to read:
// what it returns aliases b, which stays unmodified while it is used.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// answeredResponse is the identity and output of a Responses answer,
// read from its body or its terminal stream event.
type answeredResponse struct {
	id     string
	output string // JSON array of output items
}

// readAnsweredResponse reads a Responses response object: its id and
// output when it is complete (status completed or incomplete, the answers
// a conversation can continue from). They alias what resp was read from.
func readAnsweredResponse(resp gjson.Result) (answeredResponse, bool) {
	id, status, output := resp.Get("id"), resp.Get("status").Str, resp.Get("output")
	if id.Type != gjson.String || id.Str == "" || !output.IsArray() || status != "completed" && status != "incomplete" {
		return answeredResponse{}, false
	}
	return answeredResponse{id: id.Str, output: output.Raw}, true
}

// terminalEvent reports whether an SSE event's name is the event that
// ends a Responses stream with the whole response.
func terminalEvent(name []byte) bool {
	return string(name) == "response.completed" || string(name) == "response.incomplete"
}
