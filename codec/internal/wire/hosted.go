package wire

import (
	"sort"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// CitationSpan returns the byte span of citation c in text, clamped to the
// text and moved to character boundaries.
func CitationSpan(c *codec.Citation, text string) (start, end int) {
	start, end = c.Start, c.End
	if end < 0 || end > len(text) {
		end = len(text)
	}
	if start < 0 {
		start = 0
	}
	if start > end {
		start = end
	}
	for start > 0 && start < len(text) && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && end > 0 && !utf8.RuneStart(text[end]) {
		end++
	}
	return start, end
}

// RuneIndex converts byte offset off of text to a character index.
func RuneIndex(text string, off int) int {
	return utf8.RuneCountInString(text[:off])
}

// ByteIndex converts character index n of text to a byte offset, clamped
// to the text.
func ByteIndex(text string, n int) int {
	if n <= 0 {
		return 0
	}
	for off := range text {
		if n == 0 {
			return off
		}
		n--
	}
	return len(text)
}

// citedSegment is a piece of a text part and the citations that cite it.
type citedSegment struct {
	Text  string
	Cites []codec.Citation
}

// CitedSegments splits text part p at its citations' spans: uncited text
// between spans is a segment without citations; citations whose spans
// overlap are given to one segment covering them all.
func CitedSegments(p *codec.Part) []citedSegment {
	text := p.TextValue()
	type span struct {
		s, e int
		c    codec.Citation
	}
	spans := make([]span, len(p.Citations))
	for i := range p.Citations {
		s, e := CitationSpan(&p.Citations[i], text)
		spans[i] = span{s, e, p.Citations[i]}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].s < spans[j].s })
	segs := make([]citedSegment, 0, 2*len(spans)+1)
	pos := 0
	for i := 0; i < len(spans); {
		s, e := spans[i].s, spans[i].e
		if s < pos {
			s = pos
		}
		if e < s {
			e = s
		}
		cites := []codec.Citation{spans[i].c}
		for i++; i < len(spans) && spans[i].s < e; i++ {
			cites = append(cites, spans[i].c)
			if spans[i].e > e {
				e = spans[i].e
			}
		}
		if s > pos {
			segs = append(segs, citedSegment{Text: text[pos:s]})
		}
		segs = append(segs, citedSegment{Text: text[s:e], Cites: cites})
		pos = e
	}
	if pos < len(text) || len(segs) == 0 {
		segs = append(segs, citedSegment{Text: text[pos:]})
	}
	return segs
}

// SearchQuery returns the query of a search call's arguments.
func SearchQuery(args string) string {
	return gjson.Get(args, "query").String()
}

// SearchArguments returns the canonical arguments of a search for query.
func SearchArguments(query string) string {
	b := make([]byte, 0, len(query)+12)
	b = append(b, `{"query":`...)
	b = jsonx.AppendString(b, query)
	return string(append(b, '}'))
}

// AppendURLCitations appends the citations of text part p as Responses
// url_citation annotations, with character indexes.
func AppendURLCitations(dst []byte, p *codec.Part) []byte {
	dst = append(dst, '[')
	for i := range p.Citations {
		c := &p.Citations[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendURLCitation(dst, c, p.TextValue(), 0)
	}
	return append(dst, ']')
}

// AppendURLCitation appends one url_citation annotation for c in text,
// with character indexes shifted by base (Chat counts from the start of
// the whole message).
func AppendURLCitation(dst []byte, c *codec.Citation, text string, base int) []byte {
	dst = append(dst, `{"type":"url_citation",`...)
	dst = AppendURLCitationFields(dst, c, text, base)
	return append(dst, '}')
}

// AppendURLCitationFields appends the members of a url_citation
// annotation after its type: start_index, end_index, url and title.
func AppendURLCitationFields(dst []byte, c *codec.Citation, text string, base int) []byte {
	s, e := CitationSpan(c, text)
	dst = append(dst, `"start_index":`...)
	dst = jsonx.AppendInt(dst, int64(base+RuneIndex(text, s)))
	dst = append(dst, `,"end_index":`...)
	dst = jsonx.AppendInt(dst, int64(base+RuneIndex(text, e)))
	dst = append(dst, `,"url":`...)
	dst = jsonx.AppendString(dst, c.URL)
	dst = append(dst, `,"title":`...)
	return jsonx.AppendString(dst, c.Title)
}

// DecodeURLCitations reads the url_citation annotations of an output_text
// part holding text, converting character indexes to byte offsets.
// Annotations of other kinds (file citations, which need OpenAI's file
// store) are skipped.
func DecodeURLCitations(v gjson.Result, text string, dst []codec.Citation) []codec.Citation {
	if !v.IsArray() {
		return dst
	}
	for _, member := range jsonx.Members(v.Raw, nil) {
		a := member.Result()
		dst = DecodeURLCitation(a, text, dst)
	}
	return dst
}

// DecodeURLCitation appends annotation a when it is a url_citation.
func DecodeURLCitation(a gjson.Result, text string, dst []codec.Citation) []codec.Citation {
	if a.Get("type").Str != "url_citation" || a.Get("url").Str == "" {
		return dst
	}
	c := codec.Citation{URL: a.Get("url").Str, Title: a.Get("title").Str}
	c.Start = ByteIndex(text, int(a.Get("start_index").Int()))
	c.End = ByteIndex(text, int(a.Get("end_index").Int()))
	if !a.Get("end_index").Exists() {
		c.End = -1
	}
	return append(dst, c)
}

// TextOffsets follows a text as it streams by, to convert between byte
// offsets and character indexes of it (Chat annotations count characters
// of the whole message) without keeping all of it: while the text is ASCII
// the two are the same, and only the text from its first other byte on is
// kept.
type TextOffsets struct {
	N      int    // bytes seen
	tailAt int    // where tail starts: bytes and characters agree before it
	tail   []byte // the text from its first non-ASCII byte on, if any
	mixed  bool   // a non-ASCII byte was seen
}

// Add appends s to the text.
func (t *TextOffsets) Add(s string) {
	if !t.mixed {
		i := 0
		for i < len(s) && s[i] < utf8.RuneSelf {
			i++
		}
		if i == len(s) {
			t.N += len(s)
			return
		}
		t.mixed, t.tailAt = true, t.N+i
		s = s[i:]
		t.N += i
	}
	t.tail = append(t.tail, s...)
	t.N += len(s)
}

// ByteOffset converts character index chars of the text to a byte offset,
// clamped to the text seen so far.
func (t *TextOffsets) ByteOffset(chars int) int {
	switch {
	case chars <= 0:
		return 0
	case !t.mixed || chars <= t.tailAt:
		return min(chars, t.N)
	}
	return t.tailAt + ByteIndex(jsonx.BytesToString(t.tail), chars-t.tailAt)
}

// CharIndex converts byte offset off of the text to a character index,
// clamped to the text seen so far.
func (t *TextOffsets) CharIndex(off int) int {
	off = max(0, min(off, t.N))
	if !t.mixed || off <= t.tailAt {
		return off
	}
	return t.tailAt + utf8.RuneCount(t.tail[:off-t.tailAt])
}

// ChatCitation reads one Chat annotation, {type: "url_citation",
// url_citation: {start_index, end_index, url, title}}, whose indexes count
// characters of the message content; ok is false for other annotations
// and for a citation without a URL.
func ChatCitation(a gjson.Result) (c codec.Citation, start, end int, ok bool) {
	if a.Get("type").Str != "url_citation" {
		return c, 0, 0, false
	}
	u := a.Get("url_citation")
	c.URL, c.Title = u.Get("url").Str, u.Get("title").Str
	return c, int(u.Get("start_index").Int()), int(u.Get("end_index").Int()), c.URL != ""
}
