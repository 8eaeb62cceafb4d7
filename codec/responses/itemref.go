package responses

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// Item ids llmbridge issues.
//
// A client with store on (the Vercel AI SDK's default) sends an earlier
// answer's items back as {"type":"item_reference","id":...}, which OpenAI
// resolves from its own storage. llmbridge keeps no conversation state, so
// the ids of the items it writes into a translated answer carry what a
// reference needs, as the continuation envelope carries reasoning:
//
//	<prefix>lb1<base64url, no padding, of the payload>
//
// where the prefix is OpenAI's for the item (msg_, fc_, rs_) and "lb1"
// names this format, version 1 (OpenAI's own ids are hexadecimal after the
// prefix, so they never start with it). The payload's first byte says
// what follows:
//
//	't'  the text of an assistant message of one output_text part, UTF-8
//	'k'  a codec.ItemKey (16 bytes) under which Request.Items keeps the item
//
// OpenAI refuses input item ids over 64 characters, and clients that also
// talk to OpenAI drop or hash longer ids, so an id is at most
// maxItemIDLen: an assistant text of up to 41 bytes travels in its id; any
// other item, and every item of a stream (whose id is sent before its
// content), is kept in the store.
const (
	itemRefMark   = "lb1"
	itemRefText   = 't'
	itemRefKey    = 'k'
	maxItemIDLen  = 64
	itemRefPrefix = "msg_"
)

// itemRefEncoding is the payload's encoding.
var itemRefEncoding = base64.RawURLEncoding

// inlineTextID returns the id of an assistant message of the one text part
// content, when the text fits in an id; else "".
func inlineTextID(content []codec.Part) string {
	if len(content) != 1 || content[0].Type != codec.PartText || len(content[0].Citations) > 0 {
		return ""
	}
	text := content[0].TextValue()
	if len(itemRefPrefix)+len(itemRefMark)+itemRefEncoding.EncodedLen(1+len(text)) > maxItemIDLen {
		return ""
	}
	dst := make([]byte, 0, maxItemIDLen)
	dst = append(append(dst, itemRefPrefix...), itemRefMark...)
	p := make([]byte, 0, 1+len(text))
	return string(itemRefEncoding.AppendEncode(dst, append(append(p, itemRefText), text...)))
}

// storedItemID returns a new key of store and the id of an item with
// prefix kept under it.
func storedItemID(store codec.ItemStore, prefix string) (codec.ItemKey, string) {
	key := store.NewItemKey()
	var payload [1 + codec.ItemKeySize]byte
	payload[0] = itemRefKey
	copy(payload[1:], key[:])
	dst := make([]byte, 0, len(prefix)+len(itemRefMark)+itemRefEncoding.EncodedLen(len(payload)))
	dst = append(append(dst, prefix...), itemRefMark...)
	return key, string(itemRefEncoding.AppendEncode(dst, payload[:]))
}

// parseItemRefID returns the kind and data of an id llmbridge issued, or
// ok false for any other id.
func parseItemRefID(id string) (kind byte, data []byte, ok bool) {
	_, rest, found := strings.Cut(id, "_")
	if !found || len(id) > maxItemIDLen {
		return 0, nil, false
	}
	rest, found = strings.CutPrefix(rest, itemRefMark)
	if !found {
		return 0, nil, false
	}
	payload, err := itemRefEncoding.DecodeString(rest)
	if err != nil || len(payload) == 0 {
		return 0, nil, false
	}
	switch payload[0] {
	case itemRefText:
		return itemRefText, payload[1:], utf8.Valid(payload[1:])
	case itemRefKey:
		return itemRefKey, payload[1:], len(payload) == 1+codec.ItemKeySize
	}
	return 0, nil, false
}

// decodeItemReference decodes input item i, an item reference: the item
// its id names, when llmbridge issued that id and still has the item.
// Toward an openai-responses upstream references pass through untouched
// (that pair is never translated); here, a reference to an item llmbridge
// did not issue (one stored on OpenAI's servers) or no longer holds is a
// capability error that tells the client to send the item itself.
func decodeItemReference(item gjson.Result, it *responsesItem, i int, parts []codec.Part, req *request) (codec.Role, itemKind, []codec.Part, *codec.Error) {
	path := wire.IndexPath("input", i)
	const allowed = keyType | keyID
	if it.keys&^allowed != 0 {
		return 0, 0, parts, wire.UnknownField(path + "." + firstUnknownKey(item, func(k string) bool { return k == "type" || k == "id" }))
	}
	if it.id.Type != gjson.String || it.id.Str == "" {
		return 0, 0, parts, codec.InvalidRequest(path+".id", "is required")
	}
	id := it.id.Str
	const sendItem = "; send the item itself instead (with the Vercel AI SDK, providerOptions.openai.store: false makes it do so)"
	kind, data, ok := parseItemRefID(id)
	if !ok {
		return 0, 0, parts, wire.UnsupportedField(path, `input item type "item_reference" names "`+id+
			`", not an id llmbridge can restore an item from: items stored on OpenAI's servers cannot be read toward this upstream, `+
			`and llmbridge keeps none of its own with item_cache off`+sendItem)
	}
	if kind == itemRefText {
		return codec.RoleAssistant, itemMessage, append(parts, codec.Part{Type: codec.PartText, Text: string(data)}), nil
	}
	var stored []byte
	why := "this llmbridge keeps no items"
	if req.Items != nil {
		stored, why = req.Items.Item(codec.ItemKey(data))
	}
	if stored == nil {
		return 0, 0, parts, wire.UnsupportedField(path, `input item type "item_reference" names "`+id+
			`", an item llmbridge issued but no longer holds (`+why+`)`+sendItem)
	}
	s := jsonx.BytesToString(stored)
	restored := gjson.Parse(s)
	restorable := false
	switch restored.Get("type").Str {
	case "message", "function_call", "custom_tool_call", "reasoning": // never a reference again
		restorable = restored.IsObject() && jsonx.Valid(s)
	}
	if !restorable {
		return 0, 0, parts, wire.UnsupportedField(path, `input item type "item_reference" names "`+id+`", an item llmbridge cannot restore`+sendItem)
	}
	return decodeItem(restored, i, parts, req)
}
