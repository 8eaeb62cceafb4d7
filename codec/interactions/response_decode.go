package interactions

import (
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeResponse decodes an interaction of protocol p: its id, model,
// creation time, status, usage and the model's steps. Steps of the
// client's own (user_input, function_result), which an interaction read
// back by id holds too, are not the answer and are skipped.
func decodeResponse(p codec.Protocol, root gjson.Result, r *response) *codec.Error {
	var status string
	var steps gjson.Result
	var errs gjson.Result
	for k, member := range jsonx.Members(root.Raw, &r.Text) {
		v := member.Result()
		switch k {
		case "id":
			r.ID = v.Str
		case "model":
			r.Model = v.Str
		case "created":
			r.Created = parseTime(v.Str)
		case "status":
			status = v.Str
		case "steps":
			steps = v
		case "usage":
			r.Usage = decodeUsage(v)
		case "errors", "error":
			errs = v
		}
	}
	if status == "" {
		return codec.BadUpstream(p, "the interaction has no status")
	}
	if !steps.IsArray() && steps.Exists() && steps.Type != gjson.Null {
		return codec.BadUpstream(p, "steps is not an array")
	}
	calls := false
	i := 0
	for _, member := range jsonx.Members(steps.Raw, &r.Text) {
		s := member.Result()
		var err *codec.Error
		calls, err = decodeStep(p, s, i, r, calls)
		if err != nil {
			return err
		}
		i++
	}
	reason, err := stopOf(p, status, calls, errs)
	if err != nil {
		return err
	}
	r.StopReason = reason
	return nil
}

// parseTime reads an RFC 3339 time as Unix seconds, 0 when it is not one.
func parseTime(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.Unix()
}

// stopOf maps an interaction's status: completed is a natural end (a
// tool use when the steps hold function calls), requires_action waits for
// function results (a tool use), incomplete was cut by the output limit.
// requires_continuation stopped at Google's per-request decode limit
// with a continuation token that only the Interactions API can resume
// from: to a client of another family it is output cut short, as by an
// output limit. A failed or cancelled interaction is the upstream's
// error, and one still running (a background interaction) is not an
// answer.
func stopOf(p codec.Protocol, status string, calls bool, errs gjson.Result) (mapping.StopReason, *codec.Error) {
	switch status {
	case "completed":
		if calls {
			return mapping.StopToolUse, nil
		}
		return mapping.StopEnd, nil
	case "requires_action":
		return mapping.StopToolUse, nil
	case "incomplete", "budget_exceeded", "requires_continuation":
		return mapping.StopMaxTokens, nil
	case "failed", "cancelled":
		e := errs
		if e.IsArray() {
			e = e.Get("0")
		}
		if e.IsObject() {
			return mapping.StopNone, errorEvent(p, e)
		}
		return mapping.StopNone, &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream " + string(p) + " interaction " + status}
	}
	return mapping.StopNone, codec.BadUpstream(p, "the interaction is not complete (status "+status+")")
}

// decodeUsage reads an interaction's usage in canonical meaning: Google's
// input count includes cached tokens, and its output count excludes
// thoughts, as generateContent's do.
func decodeUsage(v gjson.Result) codec.Usage {
	if !v.IsObject() {
		return codec.Usage{}
	}
	return mapping.FromGeminiUsage(v.Get("total_input_tokens").Int(), v.Get("total_tool_use_tokens").Int(),
		v.Get("total_cached_tokens").Int(), v.Get("total_output_tokens").Int(), v.Get("total_thought_tokens").Int())
}

// step is what a step holds, read in one walk of its members.
type step struct {
	typ, id, name, callID, signature string
	isError                          bool
	content, summary, arguments      gjson.Result
}

// readStep reads the members of step object s, unescaping into r's arena.
func readStep(s gjson.Result, r *response) step {
	var st step
	for k, member := range jsonx.Members(s.Raw, &r.Text) {
		switch k {
		case "type":
			st.typ = member.Result().Str
		case "id":
			st.id = member.Result().Str
		case "name":
			st.name = member.Result().Str
		case "call_id":
			st.callID = member.Result().Str
		case "signature":
			st.signature = member.Result().Str
		case "is_error":
			st.isError = member.Raw == "true"
		case "content":
			st.content = member.Result()
		case "summary":
			st.summary = member.Result()
		case "arguments":
			st.arguments = member.Result()
		}
	}
	return st
}

// decodeStep decodes output step i into r.Content and reports whether
// the steps so far hold a function call.
func decodeStep(p codec.Protocol, s gjson.Result, i int, r *response, calls bool) (bool, *codec.Error) {
	if !s.IsObject() {
		return calls, codec.BadUpstream(p, wire.IndexPath("steps", i)+" is not an object")
	}
	st := readStep(s, r)
	switch st.typ {
	case "thought":
		part := codec.Part{Type: codec.PartReasoning, Text: joinSummary(st.summary, &r.Text)}
		if st.signature != "" {
			part.Signature, part.Origin = st.signature, mapping.FamilyGemini
		}
		r.Content = append(r.Content, part)
	case "model_output":
		j := 0
		for _, member := range jsonx.Members(st.content.Raw, &r.Text) {
			var typ, text string
			var annotations gjson.Result
			for k, f := range jsonx.Members(member.Raw, &r.Text) {
				switch k {
				case "type":
					typ = f.Result().Str
				case "text":
					text = f.Result().Str
				case "annotations":
					annotations = f.Result()
				}
			}
			if typ == "text" {
				r.Content = append(r.Content, codec.Part{Type: codec.PartText, Text: text, Citations: decodeAnnotations(annotations, text)})
			} else {
				// Images, audio and video a model made are display only:
				// no canonical answer carries them.
				r.Dropped = append(r.Dropped, wire.IndexPath(wire.IndexPath("steps", i)+".content", j)+" ("+typ+")")
			}
			j++
		}
	case "function_call":
		raw := "{}"
		if st.arguments.IsObject() {
			raw = st.arguments.Raw
		}
		if st.signature != "" {
			r.Content = append(r.Content, codec.Part{Type: codec.PartReasoning, Signature: st.signature, Origin: mapping.FamilyGemini})
		}
		r.Content = append(r.Content, codec.Part{Type: codec.PartToolCall, ToolCallID: st.id, ToolName: st.name, Arguments: raw})
		calls = true
	case "google_search_call":
		r.Content = append(r.Content, codec.Part{Type: codec.PartServerToolCall, ToolCallID: st.id, ToolName: "web_search",
			ToolKind: codec.ToolWebSearch, Arguments: wire.SearchArguments(st.arguments.Get("queries.0").Str)})
	case "google_search_result":
		r.Content = append(r.Content, codec.Part{Type: codec.PartServerToolResult, ToolCallID: st.callID, IsError: st.isError})
	case "user_input", "function_result":
	default:
		return calls, wire.UntranslatedStream(p, "step type "+st.typ+" cannot be translated")
	}
	return calls, nil
}

// joinSummary returns the text of a thought's summary, unescaped into
// a (nil: allocated).
func joinSummary(v gjson.Result, a *jsonx.Arena) string {
	var text string
	n := 0
	var buf []byte
	for _, member := range jsonx.Members(v.Raw, a) {
		var typ, t string
		for k, f := range jsonx.Members(member.Raw, a) {
			switch k {
			case "type":
				typ = f.Result().Str
			case "text":
				t = f.Result().Str
			}
		}
		if typ != "text" {
			continue
		}
		if n == 0 {
			text = t
		} else {
			if n == 1 {
				buf = append(buf, text...)
			}
			buf = append(buf, t...)
		}
		n++
	}
	if n > 1 {
		return string(buf)
	}
	return text
}

// decodeAnnotations reads a text's url_citation annotations, whose
// offsets are bytes of the text.
func decodeAnnotations(v gjson.Result, text string) []codec.Citation {
	var out []codec.Citation
	for _, a := range v.Array() {
		if a.Get("type").Str != "url_citation" {
			continue
		}
		c := codec.Citation{URL: a.Get("url").Str, Title: a.Get("title").Str, End: -1}
		if s := a.Get("start_index"); s.Exists() {
			c.Start = int(s.Int())
		}
		if e := a.Get("end_index"); e.Exists() && int(e.Int()) <= len(text) {
			c.End = int(e.Int())
		}
		out = append(out, c)
	}
	return out
}
