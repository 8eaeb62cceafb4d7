package responses

import (
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendResponse encodes resp as a Responses response body with
// every field openai-go's responses.Response marks required. Fields that
// echo request configuration llmbridge did not keep (instructions,
// temperature, top_p, access_programs) are null, which the API spec allows,
// rather than invented values; metadata is empty because request metadata
// is a dropped hint; the tool fields state the only configuration a
// text-only translation can have.
func appendResponse(dst []byte, resp *codec.Response, req *codec.Request) ([]byte, *codec.Error) {
	id := resp.ID
	if id == "" {
		id = wire.NewID("resp_")
	}
	created := resp.Created
	if created == 0 {
		created = time.Now().Unix()
	}
	status, incompleteReason := mapping.ResponsesStatus(resp.StopReason)

	dst = append(dst, `{"id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = jsonx.AppendInt(dst, created)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"error":null,"incomplete_details":`...)
	if incompleteReason != "" {
		dst = append(dst, `{"reason":`...)
		dst = jsonx.AppendString(dst, incompleteReason)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"instructions":null,"metadata":{},"model":`...)
	dst = jsonx.AppendString(dst, resp.Model)
	dst = append(dst, `,"output":[`...)
	// A refusal from a protocol without refusal parts (an Anthropic
	// stop_reason, say) becomes one (refusalOutput).
	var buf [1]codec.Part
	content, err := wire.RefusalOutput(resp, codec.OpenAIResponses, buf[:0])
	if err != nil {
		return dst, err
	}
	if dst, err = appendOutput(dst, id, status, content, req, resp); err != nil {
		return dst, err
	}
	dst = append(dst, `],"parallel_tool_calls":true,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"access_programs":null`...)
	if resp.Usage.Known {
		dst = appendUsage(dst, &resp.Usage)
	}
	return append(dst, '}'), nil
}

// messageID derives the output message id from the response id, so
// that a response keeps the same ids however often it is encoded (and a
// streamed encoding can agree with a non-streamed one) without a random
// source per response.
func messageID(responseID string) string {
	if strings.HasPrefix(responseID, "msg_") {
		return responseID
	}
	return "msg_" + strings.TrimPrefix(responseID, "resp_")
}

// outputItemID returns the id of output item n: the message id for
// a message at index 0 (the only item of a text response), else the
// message id or, for a function call, "fc_" with the response id, and the
// item's index. The stream encoder uses the same ids.
func outputItemID(responseID string, n int, call bool) string {
	id := messageID(responseID)
	if call {
		id = "fc_" + strings.TrimPrefix(id, "msg_")
	} else if n == 0 {
		return id
	}
	return id + "_" + strconv.Itoa(n)
}

// reasoningItemID returns the id of reasoning output item n that
// has no id of its own: "rs_" with the response id and the item's index.
func reasoningItemID(responseID string, n int) string {
	return "rs_" + strings.TrimPrefix(messageID(responseID), "msg_") + "_" + strconv.Itoa(n)
}

// itemID returns the id of an item llmbridge can restore from an
// item_reference: a new key of store and the id naming it, or, without a
// store, the zero key and plain, an id no reference can be restored from.
func itemID(store codec.ItemStore, prefix, plain string) (codec.ItemKey, string) {
	if store == nil {
		return codec.ItemKey{}, plain
	}
	return storedItemID(store, prefix)
}

// keepItem keeps item, the JSON of an output item, under key in store, when
// the item's id names the key (a non-zero key).
func keepItem(store codec.ItemStore, key codec.ItemKey, item []byte) {
	if store != nil && key != (codec.ItemKey{}) {
		store.PutItem(key, item)
	}
}

// appendOutput appends the output items of content: each tool call
// is a function_call item (custom_tool_call for a custom tool of req, with
// its namespace restored for a namespaced function), each reasoning part a
// reasoning item, each hosted search a web_search_call item holding the
// sources of the results that follow it, and the parts between them are
// message items. Their ids are ones a later item_reference can be restored
// from (itemref.go) where the item fits in its id or req has an item store.
func appendOutput(dst []byte, responseID, status string, content []codec.Part, req *codec.Request, resp *codec.Response) ([]byte, *codec.Error) {
	var store codec.ItemStore
	if req != nil {
		store = req.Items
	}
	n := 0
	for i := 0; i < len(content); n++ {
		switch p := &content[i]; p.Type {
		case codec.PartToolCall:
			if n > 0 {
				dst = append(dst, ',')
			}
			key, id := itemID(store, "fc_", outputItemID(responseID, n, true))
			start := len(dst)
			dst = appendOutputCall(dst, id, status, p, req)
			keepItem(store, key, dst[start:])
			i++
			continue
		case codec.PartReasoning:
			if n > 0 {
				dst = append(dst, ',')
			}
			id := p.ItemID
			if id == "" {
				id = reasoningItemID(responseID, n)
			}
			key, id := itemID(store, "rs_", id)
			start := len(dst)
			dst = appendOutputReasoning(dst, id, p.TextValue(), p)
			keepItem(store, key, dst[start:])
			i++
			continue
		case codec.PartServerToolCall:
			if n > 0 {
				dst = append(dst, ',')
			}
			var next int
			dst, next = appendSearchCall(dst, responseID, n, content, i)
			i = next
			continue
		case codec.PartServerToolResult:
			// A result after no search call has no item to go in.
			resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+" (server tool result)")
			n--
			i++
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		j := i + 1
		for j < len(content) && inMessage(content[j].Type) {
			j++
		}
		var err *codec.Error
		var key codec.ItemKey
		id := inlineTextID(content[i:j])
		if id == "" {
			key, id = itemID(store, itemRefPrefix, outputItemID(responseID, n, false))
		}
		start := len(dst)
		if dst, err = appendOutputMessage(dst, id, status, content[i:j]); err != nil {
			return dst, err
		}
		keepItem(store, key, dst[start:])
		i = j
	}
	return dst, nil
}

// inMessage reports whether a part of type t belongs in a message
// item.
func inMessage(t codec.PartType) bool {
	switch t {
	case codec.PartToolCall, codec.PartReasoning, codec.PartServerToolCall, codec.PartServerToolResult:
		return false
	}
	return true
}

// searchItemID is the id of web_search_call item n: the call's own
// id when it is a Responses one, else one made from the response id.
func searchItemID(own, responseID string, n int) string {
	if strings.HasPrefix(own, "ws_") {
		return own
	}
	return "ws_" + strings.TrimPrefix(messageID(responseID), "msg_") + "_" + strconv.Itoa(n)
}

// appendSearchCall appends the web_search_call item of the search
// call content[i], with the sources of the results that follow it (those
// answering its id, or without an id), and returns the index after them.
func appendSearchCall(dst []byte, responseID string, n int, content []codec.Part, i int) ([]byte, int) {
	call := &content[i]
	j := i + 1
	failed := false
	for j < len(content) && content[j].Type == codec.PartServerToolResult && (content[j].ToolCallID == "" || content[j].ToolCallID == call.ToolCallID) {
		failed = failed || content[j].IsError
		j++
	}
	status := "completed"
	if failed {
		status = "failed"
	}
	dst = appendSearchItem(dst, searchItemID(call.ToolCallID, responseID, n), status, wire.SearchQuery(call.ArgumentsValue()), content[i+1:j])
	return dst, j
}

// appendSearchItem appends a web_search_call item: a search
// action with its query and the sources of results.
func appendSearchItem(dst []byte, id, status, query string, results []codec.Part) []byte {
	dst = append(dst, `{"type":"web_search_call","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"action":{"type":"search","query":`...)
	dst = jsonx.AppendString(dst, query)
	first := true
	for k := range results {
		for _, src := range results[k].Sources {
			if first {
				dst = append(dst, `,"sources":[`...)
				first = false
			} else {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":"url","url":`...)
			dst = jsonx.AppendString(dst, src.URL)
			dst = append(dst, '}')
		}
	}
	if !first {
		dst = append(dst, ']')
	}
	return append(dst, `}}`...)
}

// appendOutputReasoning appends a reasoning output item with id,
// summary text and, when p is signed, its opaque value as a continuation
// envelope in encrypted_content (the client sends the item back and
// llmbridge unwraps it for the upstream that issued it).
func appendOutputReasoning(dst []byte, id, text string, p *codec.Part) []byte {
	dst = append(dst, `{"type":"reasoning","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = appendSummary(dst, text)
	if p.Signature != "" && p.Origin != mapping.FamilyNone {
		dst = append(dst, `,"encrypted_content":"`...)
		dst = wire.AppendOpaque(dst, p.Signature, p.Origin, p.Redacted, p.ItemID)
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// appendOutputCall appends a function_call output item, or a
// custom_tool_call item when the client's request (req, which may be nil)
// declared the called tool custom; a call of a namespaced function gets
// the function's own name and its namespace back.
func appendOutputCall(dst []byte, id, status string, p *codec.Part, req *codec.Request) []byte {
	name, ns, custom := p.ToolName, p.Namespace, p.ToolKind == codec.ToolCustom
	if t := wire.RestoreResponsesTool(req, p.ToolName); t != nil {
		name, ns, custom = t.Name, t.Namespace, t.Kind == codec.ToolCustom
	}
	if custom {
		dst = append(dst, `{"type":"custom_tool_call","id":`...)
	} else {
		dst = append(dst, `{"type":"function_call","id":`...)
	}
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"call_id":`...)
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, name)
	if ns != "" {
		dst = append(dst, `,"namespace":`...)
		dst = jsonx.AppendString(dst, ns)
	}
	if custom {
		dst = append(dst, `,"input":`...)
		dst = jsonx.AppendString(dst, wire.CustomInput(p.ArgumentsValue()))
		return append(dst, '}')
	}
	dst = append(dst, `,"arguments":`...)
	dst = wire.AppendArgumentsString(dst, p)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	return append(dst, '}')
}

// appendOutputMessage appends an assistant message item. Adjacent
// text parts stay separate output_text parts, as OpenAI emits them.
func appendOutputMessage(dst []byte, id, status string, content []codec.Part) ([]byte, *codec.Error) {
	dst = append(dst, `{"type":"message","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	for i := range content {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch p := &content[i]; p.Type {
		case codec.PartText:
			dst = append(dst, `{"type":"output_text","text":`...)
			dst = jsonx.AppendString(dst, p.TextValue())
			dst = append(dst, `,"annotations":`...)
			dst = wire.AppendURLCitations(dst, p)
			dst = append(dst, `,"logprobs":[]}`...)
		case codec.PartRefusal:
			dst = append(dst, `{"type":"refusal","refusal":`...)
			dst = jsonx.AppendString(dst, p.TextValue())
			dst = append(dst, '}')
		default:
			return dst, &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
				Message: "the upstream response holds content that the " + string(codec.OpenAIResponses) + " protocol cannot carry yet"}
		}
	}
	return append(dst, `]}`...), nil
}

// appendUsage appends the usage object; the counters are already
// in OpenAI's meaning. cache_write_tokens is written only when non-zero:
// OpenAI itself does not send it, but an Anthropic upstream's cache writes
// should not vanish.
func appendUsage(dst []byte, u *codec.Usage) []byte {
	dst = append(dst, `,"usage":{"input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"input_tokens_details":{"cached_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	if u.CacheWriteTokens > 0 {
		dst = append(dst, `,"cache_write_tokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheWriteTokens)
	}
	dst = append(dst, `},"output_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	dst = append(dst, `,"output_tokens_details":{"reasoning_tokens":`...)
	dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	dst = append(dst, `},"total_tokens":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	return append(dst, `}`...)
}
