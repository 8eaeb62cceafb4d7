package responses

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// rsReasoningItem is a reasoning output item event at output index 0.
func rsReasoningItem(typ, fields string) string {
	return rsEv(typ, `,"output_index":0,"item":{"type":"reasoning","id":"rs_1"`+fields+`}`)
}

// rsSummaryDelta is a summary text delta of summary part i.
func rsSummaryDelta(i int, delta string) string {
	return rsEv("response.reasoning_summary_text.delta", `,"item_id":"rs_1","output_index":0,"summary_index":`+string(rune('0'+i))+`,"delta":`+rsJSON(delta))
}

func TestResponsesReasoningStreamDecode(t *testing.T) {
	added := rsReasoningItem("response.output_item.added", `,"summary":[],"encrypted_content":"partial"`)
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"summary parts are separated by a blank line; the done item's encrypted content is the signature",
			rsStart + added +
				rsEv("response.reasoning_summary_part.added", `,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`) +
				rsSummaryDelta(0, "**A**") + rsSummaryDelta(0, " one") +
				rsEv("response.reasoning_summary_text.done", `,"item_id":"rs_1","summary_index":0,"text":"**A** one"`) +
				rsEv("response.reasoning_summary_part.done", `,"item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":"**A** one"}`) +
				rsEv("response.reasoning_summary_part.added", `,"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}`) +
				rsSummaryDelta(1, "B") +
				rsReasoningItem("response.output_item.done", `,"summary":[{"type":"summary_text","text":"**A** one"},{"type":"summary_text","text":"B"}],"encrypted_content":"final"`) +
				rsItem + rsText(0, "answer") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", `delta 0 "**A**"`, `delta 0 " one"`, `delta 0 "\n\n"`, `delta 0 "B"`,
				"part_stop 0 openai final", "part_start 1 text", `delta 1 "answer"`, "part_stop 1", rsWantUsage, "stop end", "end"}},
		{"encrypted content without text opens the part at the done item",
			rsStart + added + rsReasoningItem("response.output_item.done", `,"summary":[],"encrypted_content":"final"`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", "part_stop 0 openai final", rsWantUsage, "stop end", "end"}},
		{"an item with neither text nor encrypted content is no part",
			rsStart + rsReasoningItem("response.output_item.added", `,"summary":[]`) + rsReasoningItem("response.output_item.done", `,"summary":[]`) + rsDoneOK,
			[]string{rsWantStart, rsWantUsage, "stop end", "end"}},
		{"done texts stand in for missing deltas",
			rsStart + added +
				rsEv("response.reasoning_summary_text.done", `,"item_id":"rs_1","summary_index":0,"text":"first"`) +
				rsEv("response.reasoning_summary_part.done", `,"item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":"first"}`) +
				rsEv("response.reasoning_summary_part.done", `,"item_id":"rs_1","summary_index":1,"part":{"type":"summary_text","text":"second"}`) +
				rsEv("response.reasoning_summary_part.done", `,"item_id":"rs_1","summary_index":2,"part":null`) +
				rsReasoningItem("response.output_item.done", `,"summary":[{"type":"summary_text","text":"first"},{"type":"summary_text","text":"second"}]`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", `delta 0 "first"`, `delta 0 "\n\n"`, `delta 0 "second"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"the done item's summary stands in for missing text events",
			rsStart + added + rsReasoningItem("response.output_item.done", `,"summary":[{"type":"summary_text","text":"x"},{"type":"summary_text","text":"y"}],"encrypted_content":"e"`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", `delta 0 "x\n\ny"`, "part_stop 0 openai e", rsWantUsage, "stop end", "end"}},
		{"the done item's reasoning text stands in too",
			rsStart + rsReasoningItem("response.output_item.done", `,"summary":null,"content":[{"type":"reasoning_text","text":"r"}]`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", `delta 0 "r"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"deltas without their item open a part without id",
			rsStart + rsSummaryDelta(0, "x") + rsEv("response.reasoning_text.delta", `,"content_index":0,"delta":"y"`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning ", `delta 0 "x"`, `delta 0 "\n\n"`, `delta 0 "y"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"reasoning interrupted by text and resumed",
			rsStart + added + rsSummaryDelta(0, "a") + rsItem + rsText(0, "t") + rsSummaryDelta(0, "b") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", `delta 0 "a"`, "part_stop 0", "part_start 1 text", `delta 1 "t"`, "part_stop 1",
				"part_start 2 reasoning rs_1", `delta 2 "b"`, "part_stop 2", rsWantUsage, "stop end", "end"}},
		{"empty deltas are skipped", rsStart + added + rsSummaryDelta(0, "") + rsDoneOK,
			[]string{rsWantStart, rsWantUsage, "stop end", "end"}},
		{"delta not a string", rsStart + rsEv("response.reasoning_summary_text.delta", `,"summary_index":0,"delta":1`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: reasoning text is not a string"`}},
		{"summary index not a number", rsStart + rsEv("response.reasoning_summary_text.delta", `,"summary_index":"0","delta":"x"`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: reasoning part index is not a number"`}},
		{"added id not a string", rsStart + rsEv("response.output_item.added", `,"item":{"type":"reasoning","id":7}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: item.id is not a string"`}},
		{"done encrypted content not a string", rsStart + rsReasoningItem("response.output_item.done", `,"encrypted_content":[]`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: item.encrypted_content is not a string"`}},
		{"done summary not an array", rsStart + rsReasoningItem("response.output_item.done", `,"summary":{}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: item.summary is not an array"`}},
		{"done content not an array", rsStart + rsReasoningItem("response.output_item.done", `,"content":1`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: item.content is not an array"`}},
		// A refusal part makes a completed response a refusal; a failed
		// one is an error, never a refusal.
		{"refusal", rsStart + rsItem + rsPartAdded(0, "refusal") + rsEv("response.refusal.delta", `,"delta":"no"`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 refusal", `delta 0 "no"`, "part_stop 0", rsWantUsage, "stop refusal", "end"}},
		{"failed", rsStart + rsEv("response.failed", `,"response":{"status":"failed","error":{"code":"server_error","message":"boom"}}`),
			[]string{rsWantStart, `error 500 0 "boom"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := rsDecodeStream(t, tt.body, nil)
			codectest.CheckWellFormed(t, evs)
			got := eventStrings(evs)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// rsReasoningEvents is a canonical reasoning part.
func rsReasoningEvents(index int, itemID string, redacted bool, sig string, origin mapping.Family, deltas ...string) []codec.Event {
	evs := []codec.Event{{Type: codec.EventPartStart, Index: index, Part: codec.PartReasoning, ItemID: itemID, Redacted: redacted}}
	for _, d := range deltas {
		evs = append(evs, codec.Event{Type: codec.EventPartDelta, Index: index, Text: d})
	}
	return append(evs, codec.Event{Type: codec.EventPartStop, Index: index, Signature: sig, Origin: origin})
}

// reasoningEncoderCases are the canonical streams of the reasoning
// and refusal golden files.
var reasoningEncoderCases = []struct {
	name string
	evs  []codec.Event
	// What a client ends up with: the reasoning summaries and the
	// envelopes' contents in order, the text and refusal, and the error.
	summaries []string
	sigs      []mapping.Continuation
	text      string
	refusal   string
	err       string
}{
	{name: "reasoning_anthropic",
		evs: rsSeq(rsOne(rsStartEvent()), rsReasoningEvents(0, "", false, "EqQBCkYIBxgCKkA=", mapping.FamilyAnthropic, "Let me", " think."),
			rsReasoningEvents(1, "", true, "EmwKAhgBEgy3va", mapping.FamilyAnthropic), rsTextEvents(2, codec.PartText, "Paris."),
			rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd}, codec.Event{Type: codec.EventUsage, Usage: rsTestUsage}, codec.Event{Type: codec.EventEnd})),
		summaries: []string{"Let me think.", ""}, text: "Paris.",
		sigs: []mapping.Continuation{{Origin: mapping.FamilyAnthropic, Signature: "EqQBCkYIBxgCKkA="},
			{Origin: mapping.FamilyAnthropic, Redacted: true, Signature: "EmwKAhgBEgy3va"}}},
	{name: "reasoning_openai_tool_call",
		evs: rsSeq(rsOne(rsStartEvent()), rsReasoningEvents(0, "rs_up", false, "gAAAA", mapping.FamilyOpenAI, "**Plan**"),
			rsCallEvents(1, "call_1", "f", `{"a":1}`), rsReasoningEvents(2, "", false, "", mapping.FamilyNone, "unsigned"),
			rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopToolUse}, codec.Event{Type: codec.EventEnd})),
		summaries: []string{"**Plan**", "unsigned"},
		sigs:      []mapping.Continuation{{Origin: mapping.FamilyOpenAI, ItemID: "rs_up", Signature: "gAAAA"}}},
	// The stop of an Anthropic refusal without text: its explanation.
	{name: "refusal_explanation",
		evs: rsOne(rsStartEvent(), codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal,
			StopDetails: codec.StopDetails{Category: "cyber", Explanation: "I can't help with that."}},
			codec.Event{Type: codec.EventUsage, Usage: rsTestUsage}, codec.Event{Type: codec.EventEnd}),
		refusal: "I can't help with that."},
	{name: "refusal_after_reasoning",
		evs: rsSeq(rsOne(rsStartEvent()), rsReasoningEvents(0, "", false, "sig", mapping.FamilyAnthropic, "Hmm."),
			rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Explanation: "No."}}, codec.Event{Type: codec.EventEnd})),
		summaries: []string{"Hmm."}, sigs: []mapping.Continuation{{Origin: mapping.FamilyAnthropic, Signature: "sig"}}, refusal: "No."},
	// Text already sent cannot be withdrawn: no duplicate, completed.
	{name: "refusal_after_text",
		evs: rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "I won't."),
			rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Explanation: "Policy."}}, codec.Event{Type: codec.EventEnd})),
		text: "I won't."},
	{name: "refusal_without_explanation",
		evs: rsOne(rsStartEvent(), codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal}, codec.Event{Type: codec.EventEnd}),
		err: "the upstream refused without any text or explanation"},
	{name: "refusal_after_call",
		evs: rsSeq(rsOne(rsStartEvent()), rsCallEvents(0, "call_1", "f", `{}`),
			rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Explanation: "No."}}, codec.Event{Type: codec.EventEnd})),
		err: "the upstream refused after producing tool call output"},
}

func TestResponsesReasoningStreamEncode(t *testing.T) {
	for _, tc := range reasoningEncoderCases {
		t.Run(tc.name, func(t *testing.T) {
			out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "client-model"}, tc.evs)
			checkSSE(t, []byte(out))
			goldenSSE(t, tc.name, []byte(out))

			// What the client assembles from the final response.
			var final gjson.Result
			for _, ev := range splitEvents(out) {
				_, data, _ := strings.Cut(ev, "data: ")
				switch d := gjson.Parse(data); d.Get("type").Str {
				case "response.completed", "response.failed":
					final = d.Get("response")
				}
			}
			var summaries []string
			var sigs []mapping.Continuation
			var text, refusal string
			for _, it := range final.Get("output").Array() {
				switch it.Get("type").Str {
				case "reasoning":
					summaries = append(summaries, it.Get("summary.0.text").Str)
					if enc := it.Get("encrypted_content"); enc.Exists() {
						c, err := mapping.ParseContinuation(enc.Str)
						if err != nil {
							t.Fatal(err)
						}
						sigs = append(sigs, c)
					}
				case "message":
					for _, c := range it.Get("content").Array() {
						text += c.Get("text").Str
						refusal += c.Get("refusal").Str
					}
				}
			}
			if strings.Join(summaries, "|") != strings.Join(tc.summaries, "|") || text != tc.text || refusal != tc.refusal {
				t.Errorf("summaries %q text %q refusal %q", summaries, text, refusal)
			}
			if len(sigs) != len(tc.sigs) || len(sigs) > 0 && !equalContinuations(sigs, tc.sigs) {
				t.Errorf("envelopes %+v, want %+v", sigs, tc.sigs)
			}
			status := final.Get("status").Str
			if tc.err != "" {
				if status != "failed" || !strings.Contains(final.Get("error.message").Str, tc.err) {
					t.Errorf("status %s error %s, want failed with %q", status, final.Get("error").Raw, tc.err)
				}
			} else if status != "completed" {
				t.Errorf("status %s", status)
			}

			// The stream decoder reads back what the canonical events
			// said, the refusal stop included.
			s := codectest.Summarize(rsDecodeStream(t, out, nil))
			if tc.err == "" && (!s.Complete || s.Refusal != tc.refusal) {
				t.Errorf("decoded %+v", s)
			}
		})
	}
}

func equalContinuations(a, b []mapping.Continuation) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestResponsesReasoningStreamTranslateRecordings streams the recorded
// reasoning streams to a Responses client: each reasoning item it gets
// carries the upstream's final encrypted_content in its envelope, with the
// upstream's item id, and the summary text.
func TestResponsesReasoningStreamTranslateRecordings(t *testing.T) {
	for _, file := range []string{"gpt-5-reasoning-summary-followup-stream.json", "gpt-5-reasoning-summary-tool-call-stream.json",
		"reasoning-encrypted-content-stream-reframed.json"} {
		t.Run(file, func(t *testing.T) {
			body := string(readRecording(t, "openai-responses/"+file))
			evs := rsDecodeStream(t, body, nil)
			out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "m", Stream: true}, evs)
			checkSSE(t, []byte(out))
			var upstream, client []gjson.Result
			for _, ev := range splitEvents(body) {
				_, data, _ := strings.Cut(ev, "data: ")
				if d := gjson.Parse(data); d.Get("type").Str == "response.output_item.done" && d.Get("item.type").Str == "reasoning" {
					upstream = append(upstream, d.Get("item"))
				}
				if d := gjson.Parse(data); d.Get("type").Str == "response.completed" {
					break // the first response ends the stream
				}
			}
			for _, ev := range splitEvents(out) {
				_, data, _ := strings.Cut(ev, "data: ")
				if d := gjson.Parse(data); d.Get("type").Str == "response.output_item.done" && d.Get("item.type").Str == "reasoning" {
					client = append(client, d.Get("item"))
				}
			}
			if len(upstream) == 0 || len(client) != len(upstream) {
				t.Fatalf("%d reasoning items, want %d", len(client), len(upstream))
			}
			for i, up := range upstream {
				c, err := mapping.ParseContinuation(client[i].Get("encrypted_content").Str)
				want := mapping.Continuation{Origin: mapping.FamilyOpenAI, ItemID: up.Get("id").Str, Signature: up.Get("encrypted_content").Str}
				if err != nil || c != want || client[i].Get("id").Str != want.ItemID || client[i].Get("summary.0.text").Str != up.Get("summary.0.text").Str {
					t.Errorf("item %d: %s (%v)", i, client[i].Raw, err)
				}
			}
		})
	}
}

// TestResponsesReasoningStreamSDK feeds the reasoning and refusal goldens to
// the openai-go SDK: every event must be a typed event with its required
// fields, and the final response must hold the reasoning items with their
// summaries and encrypted_content envelopes, and the refusal parts, as the
// SDK's types expose them.
func TestResponsesReasoningStreamSDK(t *testing.T) {
	for _, tc := range reasoningEncoderCases {
		t.Run(tc.name, func(t *testing.T) {
			s := golden(t, tc.name)
			r := s.response
			var summaries []string
			var sigs []mapping.Continuation
			var refusal string
			for _, it := range r.Output {
				switch it.Type {
				case "reasoning":
					rs := it.AsReasoning()
					text := ""
					if len(rs.Summary) > 0 {
						text = rs.Summary[0].Text
					}
					summaries = append(summaries, text)
					if rs.EncryptedContent != "" {
						c, err := mapping.ParseContinuation(rs.EncryptedContent)
						if err != nil {
							t.Fatal(err)
						}
						sigs = append(sigs, c)
					}
				case "message":
					for _, c := range it.AsMessage().Content {
						if c.Type == "refusal" {
							refusal += c.AsRefusal().Refusal
						}
					}
				}
			}
			if tc.err != "" {
				if s.terminal != "response.failed" || !strings.Contains(s.errMsg, tc.err) {
					t.Errorf("terminal %s error %q", s.terminal, s.errMsg)
				}
				return
			}
			if strings.Join(summaries, "|") != strings.Join(tc.summaries, "|") || strings.Join(s.reasoning, "|") != strings.Join(tc.summaries, "|") {
				t.Errorf("summaries %q, streamed %q, want %q", summaries, s.reasoning, tc.summaries)
			}
			if len(sigs) != len(tc.sigs) || len(sigs) > 0 && !equalContinuations(sigs, tc.sigs) {
				t.Errorf("envelopes %+v, want %+v", sigs, tc.sigs)
			}
			if refusal != tc.refusal || s.refusal != tc.refusal || r.OutputText() != tc.text || string(r.Status) != "completed" {
				t.Errorf("refusal %q streamed %q text %q status %s", refusal, s.refusal, r.OutputText(), r.Status)
			}
		})
	}
}

// TestResponsesReasoningStreamUnclosed checks that a reasoning part the
// canonical stream never stopped is still closed, summary and all, by what
// follows it.
func TestResponsesReasoningStreamUnclosed(t *testing.T) {
	for name, next := range map[string][]codec.Event{
		"end":  {{Type: codec.EventEnd}},
		"call": rsSeq(rsCallEvents(1, "call_1", "f", `{}`), rsOne(codec.Event{Type: codec.EventEnd})),
		"text": rsSeq(rsTextEvents(1, codec.PartText, "t"), rsOne(codec.Event{Type: codec.EventEnd})),
	} {
		t.Run(name, func(t *testing.T) {
			evs := rsSeq(rsOne(rsStartEvent(), codec.Event{Type: codec.EventPartStart, Part: codec.PartReasoning}, codec.Event{Type: codec.EventPartDelta, Text: "x"}), next)
			out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "m"}, evs)
			checkSSE(t, []byte(out))
			if !strings.Contains(out, `"item":{"type":"reasoning","id":"rs_abc123_0","summary":[{"type":"summary_text","text":"x"}]}`) {
				t.Errorf("reasoning item not closed:\n%s", out)
			}
		})
	}
}
