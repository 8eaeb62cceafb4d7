package caddytest

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// recordedStream is what a recorded stream says, read from its events by
// the test: the text and refusal it streams, the stop reason (as the
// protocol writes it), the output llmbridge cannot translate yet, and the
// in-stream error it ends with, if any.
type recordedStream struct {
	text, refusal string
	// wireStop is the stop reason as the recording's protocol writes it
	// (finish_reason, status[/reason], stop_reason, finishReason or
	// "blocked:"+blockReason).
	wireStop string
	// untranslatable names the output kinds llmbridge cannot translate
	// yet (server tools, code execution), each once, in order of
	// appearance.
	untranslatable []string
	// toolCalls counts the client tool calls the stream makes; they are
	// translated, and make a natural stop a tool use.
	toolCalls int
	// failed is the in-stream error the recording ends with.
	failed string
}

// sseFrame is one event of a recorded stream.
type sseFrame struct {
	name string
	data string
	// bare is a JSON block written without data: (Google's mid-stream
	// errors).
	bare bool
}

// parseFrames reads an SSE body into events, following the SSE rules the
// SDKs follow: event: names the event, data: lines are joined with
// newlines, comments are skipped, a blank line dispatches; a block that is
// no SSE field at all is a bare JSON block.
func parseFrames(body string) []sseFrame {
	var out []sseFrame
	for _, frame := range splitFrames(body) {
		trimmed := strings.TrimSpace(frame)
		if trimmed == "" {
			continue
		}
		if strings.HasPrefix(trimmed, "{") {
			out = append(out, sseFrame{data: trimmed, bare: true})
			continue
		}
		var f sseFrame
		var data []string
		for _, line := range strings.Split(strings.ReplaceAll(frame, "\r\n", "\n"), "\n") {
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "event":
				f.name = value
			case "data":
				data = append(data, value)
			}
		}
		if len(data) > 0 {
			f.data = strings.Join(data, "\n")
			out = append(out, f)
		}
	}
	return out
}

// readRecordedStream computes what the recorded stream body of protocol p
// says, event by event.
//
// A translated stream ends at the first terminal event (one capture holds
// several responses back to back); a passthrough client's SDK reads the
// bytes to the end, so firstOnly is false for it.
func readRecordedStream(p proto, body string, firstOnly bool) recordedStream {
	var rs recordedStream
	notYet := func(kind string) {
		if !slices.Contains(rs.untranslatable, kind) {
			rs.untranslatable = append(rs.untranslatable, kind)
		}
	}
	ended := false
	for _, f := range parseFrames(body) {
		if rs.failed != "" || (ended && firstOnly) {
			break
		}
		ev := gjson.Parse(f.data)
		switch p.family() {
		case openaiChat:
			if f.data == "[DONE]" {
				continue
			}
			if ev.Get("error").Exists() {
				rs.failed = ev.Get("error.message").String()
				continue
			}
			for _, ch := range ev.Get("choices").Array() {
				if ch.Get("index").Int() != 0 {
					continue
				}
				d := ch.Get("delta")
				rs.text += d.Get("content").Str
				rs.refusal += d.Get("refusal").Str
				if d.Get("function_call").IsObject() {
					notYet("function_call")
				}
				for _, tc := range d.Get("tool_calls").Array() {
					if tc.Get("id").Str != "" {
						rs.toolCalls++
					}
				}
				if fr := ch.Get("finish_reason"); fr.Type == gjson.String {
					rs.wireStop = fr.Str
				}
			}
		case openaiResponses:
			switch typ := ev.Get("type").Str; typ {
			case "response.output_text.delta":
				rs.text += ev.Get("delta").Str
			case "response.refusal.delta":
				rs.refusal += ev.Get("delta").Str
			case "response.output_item.added":
				switch k := ev.Get("item.type").Str; k {
				case "message", "reasoning":
				case "function_call":
					rs.toolCalls++
				default:
					notYet(k)
				}
			case "response.completed", "response.incomplete":
				ended = true
				rs.wireStop = ev.Get("response.status").Str
				if r := ev.Get("response.incomplete_details.reason").Str; r != "" {
					rs.wireStop += "/" + r
				}
			case "error":
				rs.failed = ev.Get("message").Str + ev.Get("error.message").Str
			case "response.failed":
				rs.failed = ev.Get("response.error.message").Str
			}
		case anthropicMsgs:
			switch typ := ev.Get("type").Str; typ {
			case "content_block_start":
				switch k := ev.Get("content_block.type").Str; k {
				case "text":
					rs.text += ev.Get("content_block.text").Str
				case "thinking", "redacted_thinking":
				case "server_tool_use", "web_search_tool_result":
					// Hosted web search output: translated and, toward Chat and Gemini clients,
					// left out of the stream; the text is unchanged.
				case "tool_use":
					rs.toolCalls++
				default:
					notYet(k)
				}
			case "content_block_delta":
				if ev.Get("delta.type").Str == "text_delta" {
					rs.text += ev.Get("delta.text").Str
				}
			case "message_delta":
				if s := ev.Get("delta.stop_reason"); s.Type == gjson.String {
					rs.wireStop = s.Str
				}
			case "error":
				rs.failed = ev.Get("error.message").Str
			}
		case gemini:
			if ev.Get("error").Exists() {
				rs.failed = ev.Get("error.message").String()
				continue
			}
			if f.bare {
				rs.failed = "bare block " + f.data
				continue
			}
			if br := ev.Get("promptFeedback.blockReason").Str; br != "" {
				rs.wireStop = "blocked:" + br
			}
			cand := ev.Get("candidates.0")
			for _, part := range cand.Get("content.parts").Array() {
				part.ForEach(func(k, v gjson.Result) bool {
					switch k.Str {
					case "text":
						if !part.Get("thought").Bool() {
							rs.text += v.Str
						}
					case "thought", "thoughtSignature", "partMetadata":
					case "functionCall":
						// Vertex streams a call's arguments over several
						// parts; only the first names the function.
						if v.Get("name").Str != "" {
							rs.toolCalls++
						}
					default:
						notYet(k.Str)
					}
					return true
				})
			}
			if fr := cand.Get("finishReason").Str; fr != "" {
				rs.wireStop = fr
			}
		}
	}
	return rs
}

// canonicalStop is the meaning of a recorded stop reason of protocol p in
// the suite's vocabulary ("end", "max_tokens", "stop_sequence", "tool_use",
// "pause_turn", "refusal", "content_filter", "other").
func canonicalStop(p proto, wire string) string {
	switch p.family() {
	case openaiChat:
		switch wire {
		case "stop":
			return "end"
		case "length":
			return "max_tokens"
		case "tool_calls", "function_call":
			return "tool_use"
		case "content_filter":
			return "content_filter"
		}
	case openaiResponses:
		switch wire {
		case "completed":
			return "end"
		case "incomplete/max_output_tokens", "incomplete":
			return "max_tokens"
		case "incomplete/content_filter":
			return "content_filter"
		}
	case anthropicMsgs:
		switch wire {
		case "end_turn":
			return "end"
		case "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal":
			return wire
		}
	case gemini:
		switch wire {
		case "STOP":
			return "end"
		case "MAX_TOKENS":
			return "max_tokens"
		case "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "RECITATION", "MODEL_ARMOR",
			"IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
			return "content_filter"
		}
		if strings.HasPrefix(wire, "blocked:") {
			return "content_filter"
		}
	}
	return "other"
}

// sameFamilyStop is the stop reason a client of the recording's own wire
// family reads from the recorded bytes, normalised as the adapters do.
func sameFamilyStop(p proto, wire string) string {
	switch {
	case p.family() == openaiResponses:
		return canonicalStop(p, wire) // the adapter reads status and reason
	case p.isGoogle() && strings.HasPrefix(wire, "blocked:"):
		return "content_filter" // the adapter reads promptFeedback
	}
	return normaliseStop(p, wire)
}

// clientStop is how a client of protocol cp sees the canonical stop
// reason: each protocol says only what its vocabulary can (Chat and
// Responses have no stop sequence, pause or refusal reason and end those
// turns normally; Anthropic reports a content filter as a refusal; Gemini
// reports a refusal as SAFETY and everything else it has no value for as
// STOP; Converse reports a refusal as content_filtered and a pause or
// another reason as end_turn; an interaction reports a content filter as
// incomplete and ends every other turn as completed).
func clientStop(canonical string, cp proto) string {
	switch cp.family() {
	case openaiChat:
		switch canonical {
		case "max_tokens", "tool_use", "content_filter", "refusal":
			// The client's summary reads finish_reason "stop" with a
			// refusal as a refusal.
			return canonical
		}
		return "end"
	case openaiResponses:
		switch canonical {
		case "max_tokens", "content_filter":
			return canonical
		}
		return "end"
	case anthropicMsgs:
		switch canonical {
		case "content_filter":
			return "refusal"
		case "pause_turn":
			return "other:pause_turn"
		case "other":
			return "end"
		}
		return canonical
	case gemini:
		switch canonical {
		case "max_tokens", "content_filter":
			return canonical
		case "refusal":
			return "content_filter"
		case "other":
			return "other:OTHER"
		}
		return "end"
	case bedrockConverse:
		switch canonical {
		case "refusal":
			return "content_filter"
		case "pause_turn", "other":
			return "end"
		}
	case geminiInteractions:
		// An interaction is completed, incomplete or waits for function
		// results: a filter stop is output cut short, and a refusal or a
		// pause ends it like any other.
		switch canonical {
		case "max_tokens", "tool_use":
			return canonical
		case "content_filter":
			return "max_tokens"
		}
		return "end"
	}
	return canonical
}

// streamReplayCase is one streamed recording to replay.
type streamReplayCase struct {
	upstream proto
	rec      recording
	body     string
	ct       string
	want     recordedStream
	// wantRaw is what a client reading the whole recorded body sees: the
	// same-family (passthrough) clients.
	wantRaw recordedStream
}

// loadStreamReplayCases returns every successful streamed recording
// (stream: true, 2xx, text/event-stream), skipping t when the recordings
// are not present.
func loadStreamReplayCases(t *testing.T) []streamReplayCase {
	t.Helper()
	var out []streamReplayCase
	for _, up := range allProtocols {
		for _, r := range loadRecordings(t, up, "*.json") {
			status := r.root.Get("response.status").Int()
			ct := r.root.Get("response.headers.content-type").String()
			if !r.root.Get("stream").Bool() || status < 200 || status > 299 || !strings.HasPrefix(ct, "text/event-stream") {
				continue
			}
			body := r.root.Get("response.body").String()
			out = append(out, streamReplayCase{upstream: up, rec: r, body: body, ct: ct,
				want: readRecordedStream(up, body, true), wantRaw: readRecordedStream(up, body, false)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rec.id < out[j].rec.id })
	return out
}

// TestReplayStreamRecordings has the upstream mocks replay every real
// streamed recording verbatim (status, Content-Type and body, written event
// by event) to every client SDK's streaming API. Every client gets the text
// and stop reason the recording's events say (in its own protocol's
// vocabulary), except that a recording ending in an in-stream error must
// end in an SDK error for every client, and a recording whose output
// llmbridge cannot translate yet (tool calls, server tools) must end in an
// SDK error for every client of another wire family, after no more than the
// recorded text: never a silent partial success.
func TestReplayStreamRecordings(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	cases := loadStreamReplayCases(t)
	if len(cases) == 0 {
		t.Fatalf("no streamed recording found in %s", recordingsDir)
	}
	for _, rc := range cases {
		for _, cp := range allProtocols {
			t.Run(pairName(cp, rc.upstream)+"/"+strings.TrimPrefix(rc.rec.id, string(rc.upstream)+"/"), func(t *testing.T) {
				env.mocks.resetAll(t)
				runStreamReplay(t, env, clients[cp], rc)
			})
		}
	}
}

func runStreamReplay(t *testing.T, env *testEnv, c streamingClient, rc streamReplayCase) {
	cp, up := c.protocol(), rc.upstream
	name := pairName(cp, up) + " replaying " + rc.rec.id
	want := rc.want
	env.mocks[up].setScenario(scenario{Status: http.StatusOK, Header: http.Header{"Content-Type": {rc.ct}}, Body: rc.body})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.stream(ctx, env.plain[up], sharedConversation(cp.defaultModel()), streamOptions{})
	if ctx.Err() != nil {
		t.Fatalf("%s: the client's stream did not end before the %v deadline (err %v)", name, callTimeout, err)
	}
	if rec, hits := env.mocks[up].lastRequest(); hits != 1 || rec == nil || !rec.Stream {
		t.Errorf("%s: the upstream received %d requests (streamed: %v), want 1 streamed request", name, hits, rec != nil && rec.Stream)
	}
	sameFamily := cp.family() == up.family()
	if sameFamily {
		want = rc.wantRaw
	}
	recordedAll := want.text + want.refusal

	expectError := ""
	switch {
	case want.failed != "":
		expectError = "the recording ends with an in-stream error (" + want.failed + ")"
	case len(want.untranslatable) > 0 && !sameFamily:
		expectError = "the recording holds output llmbridge cannot translate yet (" + strings.Join(want.untranslatable, ", ") + ")"
	}
	if expectError != "" {
		if err == nil {
			t.Errorf("%s: the client's stream completed (text %q, refusal %q, stop %q); want an SDK error: %s",
				name, res.Text, res.Refusal, res.Stop, expectError)
			return
		}
		if got := res.Text + res.Refusal; !strings.HasPrefix(recordedAll, got) && !strings.HasPrefix(want.refusal+want.text, got) {
			t.Errorf("%s: the client got text %q before the error, which is not part of the recorded %q", name, got, recordedAll)
		}
		if !sameFamily && !isInStreamError(cp, err) {
			t.Errorf("%s: the client got %s; want its protocol's in-stream error (%s)", name, describeStreamErr(err), expectError)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: the client's stream failed: %s (after text %q)", name, describeStreamErr(err), res.Text)
	}

	// Chat and Responses clients get a refusal apart; Anthropic and
	// Gemini, which have no refusal field, get it as text.
	wantText, wantRefusal := want.text, want.refusal
	if !cp.isOpenAI() {
		wantText, wantRefusal = want.refusal+want.text, ""
	}
	if res.Text != wantText {
		t.Errorf("%s: client text = %q, want the recorded %q", name, res.Text, wantText)
	}
	if res.Refusal != wantRefusal {
		t.Errorf("%s: client refusal = %q, want the recorded %q", name, res.Refusal, wantRefusal)
	}
	stop := canonicalStop(up, want.wireStop)
	if stop == "end" && want.toolCalls > 0 {
		// Responses and Gemini end a tool-calling turn like any other.
		stop = "tool_use"
	}
	if stop == "end" && want.refusal != "" {
		// Chat and Responses end a refusal like any other turn; the
		// refusal part says what it was.
		stop = "refusal"
		if up.family() == gemini {
			// Gemini has no refusal: the mock upstream wrote SAFETY,
			// which llmbridge reads back as a content filter.
			stop = "content_filter"
		}
	}
	wantStop := clientStop(stop, cp)
	if sameFamily {
		wantStop = sameFamilyStop(up, want.wireStop)
	}
	if res.Stop != wantStop {
		t.Errorf("%s: client stop reason = %q, want %q (the recording says %q)", name, res.Stop, wantStop, want.wireStop)
	}
	if !res.Terminal {
		t.Errorf("%s: the stream ended without the client protocol's end of a complete answer", name)
	}
	if res.FinalText != "" && res.FinalText != res.Text {
		t.Errorf("%s: the final response object's text %q differs from the streamed deltas %q", name, res.FinalText, res.Text)
	}
}
