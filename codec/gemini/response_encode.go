package gemini

import (
	"encoding/base64"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendResponse appends resp as a GenerateContentResponse, with the
// fields google.golang.org/genai reads. Refusals become plain model text,
// as Gemini has no refusal slot; the stop's explanation, when the upstream
// gave one, is the candidate's finishMessage. usageMetadata is omitted when
// the upstream reported no usage, rather than claiming zero tokens.
//
// Reasoning text becomes thought parts. A reasoning part's opaque value
// goes, as a continuation token (appendToken), in the
// thoughtSignature of the next part that is not reasoning, or of an empty
// text part of its own when there is none or another signature comes
// first, which is where Gemini itself puts signatures and where the
// request decoder looks for them.
//
// A response blocked by a filter without any content is written as a
// candidate with its finishReason: a prompt block (promptFeedback) cannot
// be told apart from a blocked candidate in canonical form, and a
// candidate is what every client handles.
func appendResponse(dst []byte, resp *codec.Response) ([]byte, *codec.Error) {
	start := len(dst)
	dst = append(dst, `{"candidates":[{"content":{"role":"model"`...)
	written := false
	nparts := 0 // Gemini parts written
	part := func() {
		nparts++
		if written {
			dst = append(dst, ',')
		} else {
			// Like Google's proto JSON, which omits empty repeated
			// fields, parts is left out when there are none.
			dst = append(dst, `,"parts":[`...)
			written = true
		}
	}
	// pending holds the continuation tokens, space-separated, of the
	// reasoning whose signatures wait for the next part that is not a
	// thought (see appendToken).
	var pending, tok []byte
	flush := func() {
		part()
		dst = append(dst, `{"text":""`...)
		dst = appendPendingField(dst, pending)
		dst = append(dst, '}')
		pending = pending[:0]
	}
	var cited []int      // the Gemini part index of each cited text part
	var citedParts []int // and its index in resp.Content
	grounded := false
	for i := range resp.Content {
		p := &resp.Content[i]
		switch p.Type {
		case codec.PartServerToolCall, codec.PartServerToolResult:
			grounded = true
			continue
		case codec.PartText:
			if len(p.Citations) > 0 {
				grounded = true
			}
		}
		if p.Type == codec.PartReasoning {
			if p.HasText() {
				part()
				dst = append(dst, `{"text":`...)
				dst = jsonx.AppendString(dst, p.TextValue())
				dst = append(dst, `,"thought":true}`...)
			}
			pending, tok = appendToken(pending, p.Signature, p.Origin, p.Redacted, p.ItemID, p.TextValue(), tok)
			continue
		}
		text, ok := partText(*p)
		switch {
		case p.Type == codec.PartToolCall:
		case !ok:
			return dst[:start], cannotCarry()
		case text == "":
			continue
		}
		part()
		if p.Type == codec.PartToolCall {
			var err *codec.Error
			if dst, err = appendFunctionCall(dst, p, partAt{}, true); err != nil {
				return dst[:start], cannotCarry()
			}
		} else {
			if len(p.Citations) > 0 {
				cited, citedParts = append(cited, nparts-1), append(citedParts, i)
			}
			dst = append(dst, `{"text":`...)
			dst = jsonx.AppendString(dst, text)
			dst = append(dst, '}')
		}
		if len(pending) > 0 {
			dst = appendPendingField(dst[:len(dst)-1], pending)
			dst = append(dst, '}')
			pending = pending[:0]
		}
	}
	if len(pending) > 0 {
		// Reasoning with nothing after it: its signatures need a part of
		// their own.
		flush()
	}
	if written {
		dst = append(dst, ']')
	}
	dst = append(dst, `},"finishReason":`...)
	dst = jsonx.AppendString(dst, mapping.GeminiFinishReason(resp.StopReason))
	if resp.StopDetails.Explanation != "" {
		dst = append(dst, `,"finishMessage":`...)
		dst = jsonx.AppendString(dst, resp.StopDetails.Explanation)
	}
	if grounded {
		dst = appendGrounding(dst, resp.Content, cited, citedParts)
	}
	dst = append(dst, `,"index":0}]`...)
	if resp.Usage.Known {
		dst = appendUsage(dst, &resp.Usage)
	}
	if resp.Model != "" {
		dst = append(dst, `,"modelVersion":`...)
		dst = jsonx.AppendString(dst, resp.Model)
	}
	id := resp.ID
	if id == "" {
		// Gemini response ids carry no prefix.
		id = wire.NewID("")
	}
	dst = append(dst, `,"responseId":`...)
	dst = jsonx.AppendString(dst, id)
	return append(dst, '}'), nil
}

// appendGrounding appends a candidate's groundingMetadata: the
// queries of the search calls in content as webSearchQueries, the pages of
// their results and of the citations as groundingChunks (each URL once),
// and each citation as a groundingSupport of the text part it cites (its
// Gemini part index in cited, its content index in citedParts) with byte
// offsets.
func appendGrounding(dst []byte, content []codec.Part, cited, citedParts []int) []byte {
	dst = append(dst, `,"groundingMetadata":{"webSearchQueries":[`...)
	n := 0
	for i := range content {
		if content[i].Type == codec.PartServerToolCall {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = jsonx.AppendString(dst, wire.SearchQuery(content[i].ArgumentsValue()))
		}
	}
	var urls []string
	var titles []string
	chunk := func(url, title string) int {
		for k, u := range urls {
			if u == url {
				return k
			}
		}
		urls, titles = append(urls, url), append(titles, title)
		return len(urls) - 1
	}
	for i := range content {
		for _, src := range content[i].Sources {
			chunk(src.URL, src.Title)
		}
	}
	dst = append(dst, `],"groundingSupports":[`...)
	n = 0
	for k, ci := range citedParts {
		p := &content[ci]
		for c := range p.Citations {
			s, e := wire.CitationSpan(&p.Citations[c], p.TextValue())
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, `{"segment":{"partIndex":`...)
			dst = jsonx.AppendInt(dst, int64(cited[k]))
			dst = append(dst, `,"startIndex":`...)
			dst = jsonx.AppendInt(dst, int64(s))
			dst = append(dst, `,"endIndex":`...)
			dst = jsonx.AppendInt(dst, int64(e))
			dst = append(dst, `,"text":`...)
			dst = jsonx.AppendString(dst, p.TextValue()[s:e])
			dst = append(dst, `},"groundingChunkIndices":[`...)
			dst = jsonx.AppendInt(dst, int64(chunk(p.Citations[c].URL, p.Citations[c].Title)))
			dst = append(dst, `]}`...)
		}
	}
	dst = append(dst, `],"groundingChunks":[`...)
	for k := range urls {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"web":{"uri":`...)
		dst = jsonx.AppendString(dst, urls[k])
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, titles[k])
		dst = append(dst, `}}`...)
	}
	return append(dst, `]}`...)
}

// appendToken appends to pending (space-separated) the continuation
// token of a reasoning part's opaque value, for a Gemini client's
// thoughtSignature; pending is unchanged when the part has none. tok is
// scratch space, returned for reuse.
//
// Gemini puts a signature on the part after the thoughts, not on a thought
// part, and Gemini clients keep thought parts out of the history they
// replay (Gemini CLI), while genai's chat history drops parts that carry
// nothing but a signature. So every signature since the last part that is
// not a thought rides on the next such part, several tokens in one
// thoughtSignature when reasoning came in several blocks (Anthropic
// thinking then redacted_thinking). And since an Anthropic signature covers
// its thinking text, which must come back byte for byte, its token carries
// that text too.
func appendToken(pending []byte, signature string, origin mapping.Family, redacted bool, itemID, text string, tok []byte) ([]byte, []byte) {
	if signature == "" {
		return pending, tok
	}
	c := mapping.Continuation{Origin: origin, Redacted: redacted, ItemID: itemID, Signature: signature}
	if origin == mapping.FamilyAnthropic && !redacted {
		c.Text = text
	}
	tok = mapping.AppendEnvelope(tok[:0], c)
	if len(pending) > 0 {
		pending = append(pending, ' ')
	}
	return append(pending, tok...), tok
}

// appendPendingField appends `,"thoughtSignature":"<value>"` for the
// pending tokens: their text in standard base64. genai declares
// Part.ThoughtSignature as []byte, which encoding/json reads as standard
// base64 only, and a bare token ("llmbridge.v1." and base64url) is not:
// genai would fail on the whole response. Wrapped, the client's SDK turns
// it into bytes and back into the same text when it replays the history,
// and unwrapSignature unwraps it.
func appendPendingField(dst, pending []byte) []byte {
	dst = append(dst, `,"thoughtSignature":"`...)
	n := len(dst)
	dst = append(dst, make([]byte, base64.StdEncoding.EncodedLen(len(pending)))...)
	base64.StdEncoding.Encode(dst[n:], pending)
	return append(dst, '"')
}

// cannotCarry is the error for response content that a Gemini client
// cannot be given: the request was valid, so it is a 502, not a 400.
func cannotCarry() *codec.Error {
	return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
		Message: "the upstream response holds content that cannot be expressed in the gemini protocol"}
}

// appendUsage appends usageMetadata in Gemini's meaning:
// candidatesTokenCount excludes thoughts and promptTokenCount includes
// cached tokens.
func appendUsage(dst []byte, u *codec.Usage) []byte {
	dst = append(dst, `,"usageMetadata":{"promptTokenCount":`...)
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"candidatesTokenCount":`...)
	dst = jsonx.AppendInt(dst, u.GeminiCandidatesTokens())
	dst = append(dst, `,"totalTokenCount":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	if u.CacheReadTokens > 0 {
		dst = append(dst, `,"cachedContentTokenCount":`...)
		dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	}
	if u.ReasoningTokens > 0 {
		dst = append(dst, `,"thoughtsTokenCount":`...)
		dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	}
	return append(dst, '}')
}
