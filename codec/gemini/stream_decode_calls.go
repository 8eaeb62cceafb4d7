package gemini

import (
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// functionCall appends the events of a functionCall part. Gemini sends each
// call whole in one part (several calls may share a chunk): it becomes its
// own tool call part, PartStart with id and name, one delta with the args
// object's text (none when there are no args) and PartStop. With Vertex's
// streamFunctionCallArguments a call arrives in pieces instead: a first
// part with the name and willContinue, parts whose partialArgs set values
// at JSON paths (strings may continue over several parts), and a last part
// without willContinue; the arguments are put together and sent as one
// delta when the call ends. Calls without id (the Gemini API's) get one
// from geminiCallID.
func (d *streamDecoder) functionCall(out []codec.Event, s string, v gjson.Result) []codec.Event {
	if !v.IsObject() {
		d.bad(s, codec.BadUpstream(d.p, "functionCall is not an object"))
		return out
	}
	var id, name, args, partial gjson.Result
	more := false
	for k, member := range jsonx.Members(v.Raw, &d.text) {
		f := member.Result()
		switch k {
		case "id":
			id = f
		case "name":
			name = f
		case "args":
			args = f
		case "partialArgs":
			partial = f
		case "willContinue":
			more = f.Type == gjson.True
		}
	}
	callID, err := d.str(id, "functionCall.id")
	if err == nil {
		_, err = d.str(name, "functionCall.name")
	}
	switch {
	case err != nil:
	case args.Type != gjson.Null && !args.IsObject():
		err = codec.BadUpstream(d.p, "functionCall.args is not an object")
	case partial.Type != gjson.Null && !partial.IsArray():
		err = codec.BadUpstream(d.p, "functionCall.partialArgs is not an array")
	case d.partial == nil && name.Str == "":
		err = codec.BadUpstream(d.p, "functionCall has no name")
	case d.partial != nil && (name.Str != "" || args.Type != gjson.Null):
		err = codec.BadUpstream(d.p, "functionCall starts before the previous call's streamed arguments ended")
	case more && args.Type != gjson.Null:
		err = codec.BadUpstream(d.p, "functionCall has both args and willContinue")
	}
	if err != nil {
		d.bad(s, err)
		return out
	}
	if d.partial == nil {
		if d.open {
			out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
			d.open = false
		}
		if callID == "" {
			if d.responseID == "" {
				d.responseID = strings.Clone(gjson.Get(s, "responseId").Str)
			}
			callID = geminiCallID(d.responseID, d.calls)
		}
		d.calls++
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: codec.PartToolCall, ToolCallID: callID, ToolName: name.Str})
		d.next++
		if !more && partial.Type == gjson.Null {
			if args.Type != gjson.Null {
				out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: args.Raw})
			}
			return append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
		}
		d.partial = &argNode{kind: 'o'}
	}
	if partial.Type != gjson.Null {
		var perr *codec.Error
		for _, member := range jsonx.Members(partial.Raw, nil) {
			a := member.Result()
			perr = d.partial.apply(d.p, a)
			if perr != nil {
				break
			}
		}
		if perr != nil {
			d.bad(s, perr)
			return out
		}
	}
	if more {
		return out
	}
	if len(d.partial.keys) > 0 {
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: string(d.partial.appendJSON(nil))})
	}
	d.partial = nil
	return append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
}

// argNode is a value of a function call's arguments as Vertex
// streams them (partialArgs): an object ('o') or array ('a') with its
// members in the order they were first set, a string ('s') that may grow
// over several parts, or another scalar ('v') as raw JSON.
type argNode struct {
	kind byte
	keys []string // object member names
	kids []*argNode
	str  []byte // the unescaped string of a 's' node
	raw  string // the JSON text of a 'v' node
	// more reports that the string continues in a later part.
	more bool
}

// apply sets the value of one PartialArg {jsonPath, stringValue |
// numberValue | boolValue | nullValue, willContinue}. A jsonPath is $
// followed by .name, ['name'] and [index] steps.
func (n *argNode) apply(p codec.Protocol, a gjson.Result) *codec.Error {
	if !a.IsObject() {
		return codec.BadUpstream(p, "functionCall.partialArgs has an element that is not an object")
	}
	path := a.Get("jsonPath")
	if path.Type != gjson.String || !strings.HasPrefix(path.Str, "$") {
		return codec.BadUpstream(p, "a partialArgs jsonPath is not a JSON path")
	}
	node, err := n.walk(p, path.Str[1:])
	if err != nil {
		return err
	}
	more := a.Get("willContinue").Type == gjson.True
	if v := a.Get("stringValue"); v.Exists() {
		if v.Type != gjson.String {
			return codec.BadUpstream(p, "a partialArgs stringValue is not a string")
		}
		if node.kind != 's' || !node.more {
			node.kind, node.str = 's', node.str[:0]
		}
		node.str = append(node.str, v.Str...)
		node.more = more
		return nil
	}
	node.kind = 'v'
	switch v := a.Get("numberValue"); {
	case v.Exists():
		if v.Type != gjson.Number {
			return codec.BadUpstream(p, "a partialArgs numberValue is not a number")
		}
		node.raw = strings.Clone(v.Raw)
		return nil
	}
	if v := a.Get("boolValue"); v.Exists() {
		if v.Type != gjson.True && v.Type != gjson.False {
			return codec.BadUpstream(p, "a partialArgs boolValue is not a boolean")
		}
		node.raw = "false"
		if v.Type == gjson.True {
			node.raw = "true"
		}
		return nil
	}
	if a.Get("nullValue").Exists() {
		node.raw = "null"
		return nil
	}
	return codec.BadUpstream(p, "a partialArgs element has no value")
}

// walk returns the node at the JSON path rest (without the $), creating the
// objects and arrays on the way.
func (n *argNode) walk(p codec.Protocol, rest string) (*argNode, *codec.Error) {
	bad := codec.BadUpstream(p, "a partialArgs jsonPath is not a JSON path")
	for rest != "" {
		var key string
		index := -1
		switch {
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[") + 1
			if end == 0 {
				end = len(rest)
			}
			key, rest = rest[1:end], rest[end:]
		case strings.HasPrefix(rest, "['") || strings.HasPrefix(rest, `["`):
			end := strings.Index(rest[2:], rest[1:2]+"]")
			if end < 0 {
				return nil, bad
			}
			key, rest = rest[2:2+end], rest[2+end+2:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			k, err := strconv.Atoi(rest[1:max(end, 1)])
			if end < 0 || err != nil || k < 0 || k > 1<<16 {
				return nil, bad
			}
			index, rest = k, rest[end+1:]
		default:
			return nil, bad
		}
		if index < 0 {
			if key == "" {
				return nil, bad
			}
			n = n.member(key)
		} else {
			n = n.element(index)
		}
	}
	return n, nil
}

// member returns the member key of n, making n an object if it is not one.
func (n *argNode) member(key string) *argNode {
	if n.kind != 'o' {
		*n = argNode{kind: 'o'}
	}
	for i, k := range n.keys {
		if k == key {
			return n.kids[i]
		}
	}
	kid := &argNode{kind: 'v', raw: "null"}
	n.keys = append(n.keys, strings.Clone(key))
	n.kids = append(n.kids, kid)
	return kid
}

// element returns element i of n, making n an array if it is not one and
// filling the elements before i with null.
func (n *argNode) element(i int) *argNode {
	if n.kind != 'a' {
		*n = argNode{kind: 'a'}
	}
	for len(n.kids) <= i {
		n.kids = append(n.kids, &argNode{kind: 'v', raw: "null"})
	}
	return n.kids[i]
}

// appendJSON appends the JSON text of n.
func (n *argNode) appendJSON(dst []byte) []byte {
	switch n.kind {
	case 's':
		return jsonx.AppendString(dst, jsonx.BytesToString(n.str))
	case 'v':
		return append(dst, n.raw...)
	}
	open, close := byte('{'), byte('}')
	if n.kind == 'a' {
		open, close = '[', ']'
	}
	dst = append(dst, open)
	for i, kid := range n.kids {
		if i > 0 {
			dst = append(dst, ',')
		}
		if n.kind == 'o' {
			dst = jsonx.AppendString(dst, n.keys[i])
			dst = append(dst, ':')
		}
		dst = kid.appendJSON(dst)
	}
	return append(dst, close)
}
