package wire

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// UnsupportedField rejects a field the codec knows it cannot carry.
func UnsupportedField(path, why string) *codec.Error {
	e := codec.InvalidRequest(path, "field is not supported by llmbridge for translation: "+why)
	e.Class = codec.ClassCapability
	e.Capability.Element = removableElement(path)
	return e
}

// SetPath sets the path of e, a decoder's error built with a path relative
// to the field it decoded, once the field's own path is known: its Param,
// and for a capability error the element the lenient policy removes.
func SetPath(e *codec.Error, path string) {
	e.Param = path
	if e.Class == codec.ClassCapability {
		e.Capability.Element = removableElement(path)
	}
}

// elementFields are the last path segments that select what kind of
// element holds them (a part's type, a message's role, a media source):
// without its capability, such an element is removed whole rather than
// left without them.
var elementFields = map[string]bool{
	"type": true, "role": true, "source": true, "mimeType": true, "mime_type": true,
	"fileUri": true, "file_uri": true, "file_id": true, "inlineData": true, "inline_data": true,
	"fileData": true, "file_data": true,
}

// removableElement returns the path of the body element that removing the
// unsupported field at path takes (Capability.Element), or "" when there
// is none (a path relative to an element, such as ".type"). A field that
// selects its element's kind (elementFields) stands for the element:
// "tools[2].type" removes tools[2], "messages[0].content[1].file.file_id"
// removes messages[0].content[1], "thinking.type" removes thinking.
func removableElement(path string) string {
	if path == "" || strings.HasPrefix(path, ".") || strings.HasPrefix(path, "[") {
		return ""
	}
	dot := strings.LastIndexByte(path, '.')
	if dot < 0 || !elementFields[path[dot+1:]] {
		return path
	}
	parent := path[:dot]
	if i := strings.LastIndexByte(parent, ']'); i >= 0 {
		return parent[:i+1]
	}
	if d := strings.IndexByte(parent, '.'); d >= 0 {
		return parent[:d]
	}
	return parent
}

// RejectUnlessNull rejects a capability field outside what llmbridge
// translates, unless it is null (which means absent).
func RejectUnlessNull(v gjson.Result, path, why string) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	return UnsupportedField(path, why)
}

// UnknownField rejects a field the codec does not know.
func UnknownField(path string) *codec.Error {
	e := codec.InvalidRequest(path, "unknown field; llmbridge does not forward fields it cannot translate")
	e.Class = codec.ClassUnknownField
	return e
}

// CannotEncode rejects a request whose canonical content the target protocol
// cannot express.
// c names what Request.Drop would remove (the zero Capability for
// nothing).
func CannotEncode(p codec.Protocol, path, what string, c codec.Capability) *codec.Error {
	e := codec.InvalidRequest(path, what+" cannot be expressed in the "+string(p)+" protocol")
	e.Class = codec.ClassCapability
	e.Capability = c
	return e
}

// IndexPath returns prefix[i], for error paths. The paths of the first
// elements of the conversation arrays (messages, input, contents) are
// made once per process (pathTable).
func IndexPath(prefix string, i int) string {
	var table *pathTable
	switch prefix {
	case "messages":
		table = &messagePaths
	case "input":
		table = &inputPaths
	case "contents":
		table = &contentsPaths
	}
	if table == nil || i < 0 || i >= len(table) {
		return prefix + "[" + strconv.Itoa(i) + "]"
	}
	if p := table[i].Load(); p != nil {
		return *p
	}
	p := prefix + "[" + strconv.Itoa(i) + "]"
	table[i].Store(&p)
	return p
}

// pathTable holds the paths of the first elements of a top-level array,
// made once per process: decoders name every message or item they read
// (its errors need the path), and a conversation's paths are the same
// from request to request, so that naming them costs no allocation.
type pathTable [1 << 12]atomic.Pointer[string]

// The path tables of the conversation arrays of every protocol.
var messagePaths, inputPaths, contentsPaths pathTable
