package caddytest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/mapping"
)

// expectation is what a recorded response says, read from its bytes by the
// conformance test itself (gjson over the recorded JSON and events), not by
// llmbridge's codecs: the text, refusal and tool calls it carries, why it
// stopped, the error it is or ends with, and the output llmbridge does not
// translate.
type expectation struct {
	// status is the recorded HTTP status; errMessage the error body's
	// message when it is 4xx/5xx.
	status     int
	errMessage string
	// text and refusal are the visible text and refusal text.
	text, refusal string
	// calls are the client tool calls, in order; an id is "" when the
	// provider gave none (the Gemini API).
	calls []outCall
	// stop is the recorded stop reason in canonical meaning, a natural end
	// with tool calls counting as a tool use.
	stop mapping.StopReason
	// failed is the in-stream error the recorded stream ends with.
	failed string
	// signatures are the reasoning's opaque values in order: Anthropic
	// thinking signatures and redacted_thinking data, Responses
	// encrypted_content, Gemini thoughtSignatures.
	signatures []string
	// sigCalls holds, for each of signatures, the number of client tool
	// calls before it.
	sigCalls []int
	// other names the output kinds that are not text, refusal, reasoning
	// or client tool calls (server tools and their results), each once.
	other []string
}

// sign adds an opaque value, noting how many client tool calls came
// before it (sigCalls).
func (e *expectation) sign(v string) {
	e.signatures = append(e.signatures, v)
	e.sigCalls = append(e.sigCalls, len(e.calls))
}

// chatSignatures are the opaque values a Chat client gets: those a tool
// call follows, in whose id they travel.
func (e *expectation) chatSignatures() []string {
	var out []string
	for i, v := range e.signatures {
		if e.sigCalls[i] < len(e.calls) {
			out = append(out, v)
		}
	}
	return out
}

// note adds an output kind to e.other once.
func (e *expectation) note(kind string) {
	if !slices.Contains(e.other, kind) {
		e.other = append(e.other, kind)
	}
}

// expectRecording reads what recording r of upstream protocol up says.
func expectRecording(up proto, r recording) expectation {
	e := expectation{status: int(r.root.Get("response.status").Int())}
	body := r.root.Get("response.body").String()
	if e.status >= 400 {
		e.errMessage = gjson.Get(body, "error.message").String()
		return e
	}
	if strings.HasPrefix(r.root.Get("response.headers.content-type").String(), "text/event-stream") {
		expectStream(&e, up, body)
	} else {
		expectJSON(&e, up, gjson.Parse(body))
	}
	if e.stop == mapping.StopEnd && len(e.calls) > 0 {
		// Responses and Gemini end a tool-calling turn like any other.
		e.stop = mapping.StopToolUse
	}
	return e
}

// expectJSON reads a recorded non-streamed response body of protocol up.
func expectJSON(e *expectation, up proto, body gjson.Result) {
	switch up.family() {
	case openaiChat:
		m := body.Get("choices.0.message")
		e.text = m.Get("content").Str
		e.refusal = m.Get("refusal").Str
		for _, tc := range m.Get("tool_calls").Array() {
			e.calls = append(e.calls, outCall{id: tc.Get("id").Str, name: tc.Get("function.name").Str, args: tc.Get("function.arguments").Str})
		}
		e.stop = mapping.FromChatFinishReason(body.Get("choices.0.finish_reason").Str)
	case openaiResponses:
		for _, item := range body.Get("output").Array() {
			switch k := item.Get("type").Str; k {
			case "message":
				for _, c := range item.Get("content").Array() {
					switch c.Get("type").Str {
					case "output_text":
						e.text += c.Get("text").Str
					case "refusal":
						e.refusal += c.Get("refusal").Str
					}
				}
			case "function_call":
				e.calls = append(e.calls, outCall{id: item.Get("call_id").Str, name: item.Get("name").Str, args: item.Get("arguments").Str})
			case "reasoning":
				if enc := item.Get("encrypted_content").Str; enc != "" {
					e.sign(enc)
				}
			default:
				e.note(k)
			}
		}
		e.stop, _ = mapping.FromResponsesStatus(body.Get("status").Str, body.Get("incomplete_details.reason").Str, len(e.calls) > 0)
	case anthropicMsgs:
		for _, c := range body.Get("content").Array() {
			switch k := c.Get("type").Str; k {
			case "text":
				e.text += c.Get("text").Str
			case "tool_use":
				e.calls = append(e.calls, outCall{id: c.Get("id").Str, name: c.Get("name").Str, args: c.Get("input").Raw})
			case "thinking":
				if sig := c.Get("signature").Str; sig != "" {
					e.sign(sig)
				}
			case "redacted_thinking":
				e.sign(c.Get("data").Str)
			default:
				e.note(k)
			}
		}
		e.stop = mapping.FromAnthropicStopReason(body.Get("stop_reason").Str)
	case gemini:
		cand := body.Get("candidates.0")
		for _, part := range cand.Get("content.parts").Array() {
			geminiPart(e, part, nil)
		}
		e.stop = mapping.FromGeminiFinishReason(cand.Get("finishReason").Str)
		if !cand.Exists() && body.Get("promptFeedback.blockReason").Str != "" {
			e.stop = mapping.StopContentFilter
		}
	}
}

// geminiPart adds a Gemini part to e; args collects streamed partial
// arguments of the call in progress (nil for a whole response).
func geminiPart(e *expectation, part gjson.Result, args *partialArgs) {
	defer func() {
		// A signature on a call's part goes with that call.
		if n := len(e.sigCalls); n > 0 && e.sigCalls[n-1] == -1 {
			e.sigCalls[n-1] = len(e.calls) - 1
		}
	}()
	part.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "text":
			if !part.Get("thought").Bool() {
				e.text += v.Str
			}
		case "thoughtSignature":
			e.sign(v.Str)
			if part.Get("functionCall.name").Str != "" {
				// It travels with the call on its own part, which counts
				// among the calls before it once the part is read.
				e.sigCalls[len(e.sigCalls)-1] = -1
			}
		case "thought", "partMetadata":
		case "functionCall":
			if name := v.Get("name").Str; name != "" {
				e.calls = append(e.calls, outCall{id: v.Get("id").Str, name: name, args: v.Get("args").Raw})
				if args != nil {
					*args = partialArgs{}
				}
			}
			if args != nil && len(e.calls) > 0 {
				for _, pa := range v.Get("partialArgs").Array() {
					args.apply(pa)
				}
				if args.root != nil {
					b, _ := json.Marshal(args.root)
					e.calls[len(e.calls)-1].args = string(b)
				}
			}
		default:
			e.note(k.Str)
		}
		return true
	})
}

// expectStream reads a recorded event stream of protocol up, up to its
// first terminal event (one capture holds several responses back to back;
// llmbridge, and every client, stops at the first).
func expectStream(e *expectation, up proto, body string) {
	type chatCall struct{ id, name, args string }
	var chatCalls []*chatCall
	var doneSigs []string
	var args partialArgs
	// Anthropic tool input arrives as JSON fragments per block.
	blockInput := map[int64]*strings.Builder{}
	blockCall := map[int64]int{}
	ended := false
	for _, f := range parseFrames(body) {
		if ended || e.failed != "" {
			break
		}
		ev := gjson.Parse(f.data)
		switch up.family() {
		case openaiChat:
			if f.data == "[DONE]" {
				ended = true
				continue
			}
			if ev.Get("error").Exists() {
				e.failed = ev.Get("error.message").String()
				continue
			}
			for _, ch := range ev.Get("choices").Array() {
				if ch.Get("index").Int() != 0 {
					continue
				}
				d := ch.Get("delta")
				e.text += d.Get("content").Str
				e.refusal += d.Get("refusal").Str
				for _, tc := range d.Get("tool_calls").Array() {
					i := int(tc.Get("index").Int())
					for len(chatCalls) <= i {
						chatCalls = append(chatCalls, &chatCall{})
					}
					c := chatCalls[i]
					if id := tc.Get("id").Str; id != "" {
						c.id = id
					}
					if n := tc.Get("function.name").Str; n != "" {
						c.name = n
					}
					c.args += tc.Get("function.arguments").Str
				}
				if fr := ch.Get("finish_reason"); fr.Type == gjson.String {
					e.stop = mapping.FromChatFinishReason(fr.Str)
				}
			}
		case openaiResponses:
			switch ev.Get("type").Str {
			case "response.output_text.delta":
				e.text += ev.Get("delta").Str
			case "response.output_item.done":
				// A reasoning item's final encrypted_content is the one in
				// output_item.done (the response object's copy differs
				// in real traffic; both are the provider's).
				if enc := ev.Get("item.encrypted_content").Str; enc != "" && ev.Get("item.type").Str == "reasoning" {
					doneSigs = append(doneSigs, enc)
				}
			case "response.completed", "response.incomplete":
				// The final response object holds the whole output.
				ended = true
				streamed := e.text
				*e = expectation{status: e.status}
				expectJSON(e, up, ev.Get("response"))
				if len(doneSigs) > 0 {
					e.signatures = doneSigs
				}
				if e.text == "" && len(e.calls) == 0 {
					// An early capture whose final object lists no output.
					e.text = streamed
				}
			case "error":
				e.failed = ev.Get("message").Str + ev.Get("error.message").Str
			case "response.failed":
				e.failed = ev.Get("response.error.message").Str
			}
		case anthropicMsgs:
			switch k := ev.Get("type").Str; k {
			case "content_block_start":
				cb := ev.Get("content_block")
				switch t := cb.Get("type").Str; t {
				case "text":
					e.text += cb.Get("text").Str
				case "tool_use":
					blockCall[ev.Get("index").Int()] = len(e.calls)
					blockInput[ev.Get("index").Int()] = &strings.Builder{}
					e.calls = append(e.calls, outCall{id: cb.Get("id").Str, name: cb.Get("name").Str, args: cb.Get("input").Raw})
				case "thinking":
				case "redacted_thinking":
					e.sign(cb.Get("data").Str)
				default:
					e.note(t)
				}
			case "content_block_delta":
				switch ev.Get("delta.type").Str {
				case "text_delta":
					e.text += ev.Get("delta.text").Str
				case "input_json_delta":
					if b := blockInput[ev.Get("index").Int()]; b != nil {
						b.WriteString(ev.Get("delta.partial_json").Str)
					}
				case "signature_delta":
					e.sign(ev.Get("delta.signature").Str)
				}
			case "content_block_stop":
				i := ev.Get("index").Int()
				if b := blockInput[i]; b != nil && b.Len() > 0 {
					e.calls[blockCall[i]].args = b.String()
				}
			case "message_delta":
				if s := ev.Get("delta.stop_reason"); s.Type == gjson.String {
					e.stop = mapping.FromAnthropicStopReason(s.Str)
				}
			case "message_stop":
				ended = true
			case "error":
				e.failed = ev.Get("error.message").Str
			}
		case gemini:
			if f.bare || ev.Get("error").Exists() {
				e.failed = ev.Get("error.message").String()
				if e.failed == "" {
					e.failed = "bare block " + f.data
				}
				continue
			}
			if ev.Get("promptFeedback.blockReason").Str != "" && !ev.Get("candidates").Exists() {
				e.stop = mapping.StopContentFilter
			}
			cand := ev.Get("candidates.0")
			for _, part := range cand.Get("content.parts").Array() {
				geminiPart(e, part, &args)
			}
			if fr := cand.Get("finishReason").Str; fr != "" {
				e.stop = mapping.FromGeminiFinishReason(fr)
			}
		}
	}
	for _, c := range chatCalls {
		e.calls = append(e.calls, outCall{id: c.id, name: c.name, args: c.args})
	}
}

// partialArgs puts together the arguments of a Vertex call streamed as
// partialArgs: values at JSON paths ($.a.b[0].c), strings continued over
// several parts while willContinue is set.
type partialArgs struct {
	root any
}

// pathStep matches one step of a partialArgs jsonPath.
var pathStep = regexp.MustCompile(`\.([^.\[]+)|\[(\d+)\]`)

// apply sets the value of one partialArgs entry.
func (a *partialArgs) apply(pa gjson.Result) {
	path := strings.TrimPrefix(pa.Get("jsonPath").Str, "$")
	var value any
	appendString := false
	switch {
	case pa.Get("stringValue").Exists():
		value, appendString = pa.Get("stringValue").Str, true
	case pa.Get("numberValue").Exists():
		value = pa.Get("numberValue").Float()
	case pa.Get("boolValue").Exists():
		value = pa.Get("boolValue").Bool()
	default:
		value = nil
	}
	var steps []any
	for _, m := range pathStep.FindAllStringSubmatch(path, -1) {
		if m[1] != "" {
			steps = append(steps, m[1])
		} else {
			n, _ := strconv.Atoi(m[2])
			steps = append(steps, n)
		}
	}
	a.root = setAt(a.root, steps, value, appendString)
}

// setAt returns node with value set at steps (object keys and array
// indexes), appending to a string already there when appendString is set.
func setAt(node any, steps []any, value any, appendString bool) any {
	if len(steps) == 0 {
		if s, ok := node.(string); ok && appendString {
			return s + value.(string)
		}
		return value
	}
	switch step := steps[0].(type) {
	case string:
		m, _ := node.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[step] = setAt(m[step], steps[1:], value, appendString)
		return m
	case int:
		s, _ := node.([]any)
		for len(s) <= step {
			s = append(s, nil)
		}
		s[step] = setAt(s[step], steps[1:], value, appendString)
		return s
	}
	return node
}

// sameJSON reports whether two JSON texts hold the same value; "" stands
// for an empty object, as a call without arguments is {} in every protocol.
func sameJSON(a, b string) bool {
	parse := func(s string) (any, bool) {
		if strings.TrimSpace(s) == "" {
			s = "{}"
		}
		var v any
		return v, json.Unmarshal([]byte(s), &v) == nil
	}
	va, okA := parse(a)
	vb, okB := parse(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

// stopSeenBy is the stop reason a client of protocol cp reads when its
// protocol carries s: each protocol keeps only what its vocabulary can say
// (mapping/stop.go, docs/translation.md's stop reason rules). A Responses or Gemini
// answer with tool calls is a tool use. It lets a replay compare the
// recorded stop reason with the client's in the client's vocabulary; what
// the codecs write for each stop value is codec's TestStopPairs.
func stopSeenBy(cp proto, s mapping.StopReason, hasCalls bool) mapping.StopReason {
	var r mapping.StopReason
	switch cp.family() {
	case openaiChat:
		r = mapping.FromChatFinishReason(mapping.ChatFinishReason(s))
	case openaiResponses:
		status, reason := mapping.ResponsesStatus(s)
		r, _ = mapping.FromResponsesStatus(status, reason, hasCalls)
	case anthropicMsgs:
		r = mapping.FromAnthropicStopReason(mapping.AnthropicStopReason(s))
	case gemini:
		r = mapping.FromGeminiFinishReason(mapping.GeminiFinishReason(s))
	case bedrockConverse:
		r = mapping.FromConverseStopReason(mapping.ConverseStopReason(s))
	}
	if r == mapping.StopEnd && hasCalls {
		r = mapping.StopToolUse
	}
	return r
}

// compareAnswer returns how a client's successful answer differs from
// the recording: text and refusal (clients without a refusal field get it
// as text), tool calls (names and arguments as JSON, ids where the
// recording has them, a non-empty id otherwise), and the stop reason's
// meaning in the client's vocabulary.
func compareAnswer(cp proto, want expectation, got clientOutcome) []string {
	var diffs []string
	wantText, wantRefusal := want.text, want.refusal
	if !cp.isOpenAI() {
		wantText, wantRefusal = want.refusal+want.text, ""
	}
	if strings.Contains(got.text+got.refusal, mapping.EnvelopePrefix) {
		diffs = append(diffs, "visible text holds a continuation envelope")
	}
	if got.text != wantText {
		diffs = append(diffs, fmt.Sprintf("text %q, want %q", clip(got.text), clip(wantText)))
	}
	if got.refusal != wantRefusal {
		diffs = append(diffs, fmt.Sprintf("refusal %q, want %q", clip(got.refusal), clip(wantRefusal)))
	}
	if len(got.calls) != len(want.calls) {
		diffs = append(diffs, fmt.Sprintf("%d tool calls, want %d", len(got.calls), len(want.calls)))
	} else {
		for i, w := range want.calls {
			g := got.calls[i]
			switch {
			case g.name != w.name:
				diffs = append(diffs, fmt.Sprintf("tool call %d is %q, want %q", i, g.name, w.name))
			case w.id != "" && g.id != w.id:
				diffs = append(diffs, fmt.Sprintf("tool call %d has id %q, want %q", i, g.id, w.id))
			case g.id == "":
				diffs = append(diffs, fmt.Sprintf("tool call %d has no id", i))
			case !sameJSON(g.args, w.args):
				diffs = append(diffs, fmt.Sprintf("tool call %d arguments %s, want %s", i, clip(g.args), clip(w.args)))
			}
		}
	}
	// Every opaque value reaches the client, in its own slot or (Chat)
	// the id of the tool call that follows it, as a continuation envelope
	// that carries the recorded bytes. Chat clients have nowhere to keep
	// the values no tool call follows, which no next turn needs.
	wantSigs := want.signatures
	if cp == openaiChat && want.status < 300 {
		wantSigs = want.chatSignatures()
	}
	if !slices.Equal(got.signatures, wantSigs) {
		diffs = append(diffs, fmt.Sprintf("reasoning opaque values %q, want the recorded %q", clipAll(got.signatures), clipAll(wantSigs)))
	}
	hasCalls := len(want.calls) > 0
	wantStop := stopSeenBy(cp, want.stop, hasCalls)
	gotStop := stopSeenBy(cp, got.stop, hasCalls)
	// OpenAI ends a refusal with a natural stop; a translation that
	// reports it as a refusal keeps its meaning too.
	refusalOK := want.refusal != "" && gotStop == stopSeenBy(cp, mapping.StopRefusal, hasCalls)
	if gotStop != wantStop && !refusalOK {
		diffs = append(diffs, fmt.Sprintf("stop reason %s, want %s (recorded %s)", gotStop, wantStop, want.stop))
	}
	return diffs
}

// clipAll clips every string of ss.
func clipAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clip(s)
	}
	return out
}

// clip shortens s for a report line.
func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
