package interactions

import (
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendResponse appends resp as an interaction: consecutive text is one
// model_output step, reasoning a thought step (its signature raw when
// Google issued it, else a continuation token that brings it back to its
// issuer), tool calls function_call steps and a hosted search its call
// and result steps. req, the client's request, may be nil.
func appendResponse(dst []byte, resp *codec.Response, req *codec.Request) ([]byte, *codec.Error) {
	// A refusal is output: the API has no refusal slot or status (the
	// explanation stands in for missing text; a refusal with neither is
	// an error, not a blank success).
	content, err := wire.RefusalOutput(resp, Gemini, nil)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"id":`...)
	dst = appendID(dst, resp.ID)
	dst = append(dst, `,"model":`...)
	model := resp.Model
	if model == "" && req != nil {
		model = req.Model
	}
	dst = jsonx.AppendString(dst, model)
	dst = append(dst, `,"status":"`...)
	dst = append(dst, status(resp.StopReason)...)
	dst = append(dst, '"')
	if resp.Created > 0 {
		dst = append(dst, `,"created":"`...)
		dst = time.Unix(resp.Created, 0).UTC().AppendFormat(dst, time.RFC3339)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"steps":[`...)
	var tok []byte
	open := false // a model_output step is open
	n := 0
	for i := range content {
		p := &content[i]
		if p.Type == codec.PartText || p.Type == codec.PartRefusal {
			if !open {
				dst = appendComma(dst, n)
				n++
				dst = append(dst, `{"type":"model_output","content":[`...)
				open = true
			} else {
				dst = append(dst, ',')
			}
			dst = appendTextContent(dst, p)
			continue
		}
		if open {
			dst = append(dst, `]}`...)
			open = false
		}
		dst = appendComma(dst, n)
		n++
		switch p.Type {
		case codec.PartReasoning:
			dst, tok = appendThoughtStep(dst, p.Signature, p.Origin, p.Redacted, p.ItemID, p.TextValue(), tok)
		case codec.PartToolCall:
			if p.HasArguments() && !wire.ArgumentsObject(p, jsonx.IsObject) {
				return dst, &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
					Message: "the upstream sent tool call arguments that are not a JSON object"}
			}
			dst = appendFunctionCall(dst, p)
		case codec.PartServerToolCall:
			dst = append(dst, `{"type":"google_search_call","id":`...)
			dst = jsonx.AppendString(dst, p.ToolCallID)
			dst = append(dst, `,"arguments":{"queries":[`...)
			dst = jsonx.AppendString(dst, wire.SearchQuery(p.ArgumentsValue()))
			dst = append(dst, `]}}`...)
		case codec.PartServerToolResult:
			dst = append(dst, `{"type":"google_search_result","call_id":`...)
			dst = jsonx.AppendString(dst, p.ToolCallID)
			if p.IsError {
				dst = append(dst, `,"is_error":true`...)
			}
			dst = append(dst, `,"result":[]}`...)
			if len(p.Sources) > 0 {
				// Google's search results carry no pages: its answers cite
				// them in the text's annotations instead.
				resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+".sources")
			}
		default:
			// Media and other parts never come in an answer.
			dst = append(dst, `{"type":"model_output","content":[]}`...)
			resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+" ("+p.Type.String()+")")
		}
	}
	if open {
		dst = append(dst, `]}`...)
	}
	dst = append(dst, ']')
	if resp.Usage.Known {
		dst = appendUsage(dst, &resp.Usage)
	}
	return append(dst, '}'), nil
}

// appendComma appends the comma before element n of a list.
func appendComma(dst []byte, n int) []byte {
	if n > 0 {
		return append(dst, ',')
	}
	return dst
}

// appendID appends an interaction id: the upstream's, or a new one in
// Google's style.
func appendID(dst []byte, id string) []byte {
	if id == "" {
		id = wire.NewID("v1_")
	}
	return jsonx.AppendString(dst, id)
}

// status returns the interaction status of stop reason s: a tool use
// waits for function results (requires_action), output cut short is
// incomplete, anything else is completed.
func status(s mapping.StopReason) string {
	switch s {
	case mapping.StopToolUse:
		return "requires_action"
	case mapping.StopMaxTokens, mapping.StopContextWindow, mapping.StopContentFilter:
		return "incomplete"
	}
	return "completed"
}

// appendTextContent appends a text content object, with its citations as
// url_citation annotations (byte offsets).
func appendTextContent(dst []byte, p *codec.Part) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	dst = jsonx.AppendString(dst, p.TextValue())
	if len(p.Citations) > 0 {
		dst = append(dst, `,"annotations":[`...)
		for k := range p.Citations {
			c := &p.Citations[k]
			if k > 0 {
				dst = append(dst, ',')
			}
			start, end := wire.CitationSpan(c, p.TextValue())
			dst = append(dst, `{"type":"url_citation","url":`...)
			dst = jsonx.AppendString(dst, c.URL)
			if c.Title != "" {
				dst = append(dst, `,"title":`...)
				dst = jsonx.AppendString(dst, c.Title)
			}
			dst = append(dst, `,"start_index":`...)
			dst = jsonx.AppendInt(dst, int64(start))
			dst = append(dst, `,"end_index":`...)
			dst = jsonx.AppendInt(dst, int64(end))
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendThoughtStep appends a thought step for a client. A thought
// signature Google issued goes as it is; another family's, and a Gemini
// part kept whole (code execution and the like, which is no signature
// and whose content the client must not be shown), go as a continuation
// token, which brings it back to its issuer when the client replays the
// step (with the thinking text an Anthropic signature covers, which must
// come back byte for byte). tok is scratch space for the token.
func appendThoughtStep(dst []byte, signature string, origin mapping.Family, redacted bool, itemID, text string, tok []byte) ([]byte, []byte) {
	dst = append(dst, `{"type":"thought"`...)
	if signature != "" {
		dst = append(dst, `,"signature":`...)
		if origin == mapping.FamilyGemini && !strings.HasPrefix(signature, "{") {
			dst = jsonx.AppendString(dst, signature)
		} else {
			c := mapping.Continuation{Origin: origin, Redacted: redacted, ItemID: itemID, Signature: signature}
			if origin == mapping.FamilyAnthropic && !redacted {
				c.Text = text
			}
			tok = mapping.AppendEnvelope(tok[:0], c)
			dst = jsonx.AppendString(dst, jsonx.BytesToString(tok))
		}
	}
	if text != "" {
		dst = append(dst, `,"summary":[{"type":"text","text":`...)
		dst = jsonx.AppendString(dst, text)
		dst = append(dst, `}]`...)
	}
	return append(dst, '}'), tok
}

// appendUsage appends usage in Google's meaning: the input count
// includes cached tokens, the output count excludes thoughts.
func appendUsage(dst []byte, u *codec.Usage) []byte {
	dst = append(dst, `,"usage":{"total_input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"total_output_tokens":`...)
	dst = jsonx.AppendInt(dst, u.GeminiCandidatesTokens())
	if u.ReasoningTokens > 0 {
		dst = append(dst, `,"total_thought_tokens":`...)
		dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	}
	if u.CacheReadTokens > 0 {
		dst = append(dst, `,"total_cached_tokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	}
	dst = append(dst, `,"total_tokens":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	return append(dst, '}')
}
