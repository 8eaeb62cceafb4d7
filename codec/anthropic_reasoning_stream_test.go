package codec

import (
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// Reasoning tests of Anthropic Messages streams: thinking blocks decoded
// and encoded, against recordings and the Anthropic SDK.

// anthropicThinkingEvents is a canonical stream with reasoning from several
// families, text and a refusal stop with details.
func anthropicThinkingEvents() []Event {
	return []Event{
		{Type: EventStart, ID: "msg_think", Model: "m-1", Usage: Usage{Known: true, InputTokens: 20, CacheReadTokens: 5, OutputTokens: 1}},
		{Type: EventPartStart, Index: 0, Part: PartReasoning},
		{Type: EventPartDelta, Index: 0, Text: "Thinking about \"it\"."},
		{Type: EventPartDelta, Index: 0, Text: " More."},
		{Type: EventPartStop, Index: 0, Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
		{Type: EventPartStart, Index: 1, Part: PartReasoning, Redacted: true},
		{Type: EventPartDelta, Index: 1, Text: "ignored: redacted reasoning has no text"},
		{Type: EventPartStop, Index: 1, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
		{Type: EventPartStart, Index: 2, Part: PartReasoning, ItemID: "rs_9"},
		{Type: EventPartDelta, Index: 2, Text: "A summary."},
		{Type: EventPartStop, Index: 2, Signature: "gAAAA==", Origin: mapping.FamilyOpenAI},
		{Type: EventPartStart, Index: 3, Part: PartReasoning},
		{Type: EventPartStop, Index: 3, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
		{Type: EventPartStart, Index: 4, Part: PartReasoning},
		{Type: EventPartDelta, Index: 4, Text: "Unsigned."},
		{Type: EventPartStop, Index: 4},
		{Type: EventPartStart, Index: 5, Part: PartReasoning, Redacted: true},
		{Type: EventPartStop, Index: 5}, // redacted without data: nothing to write
		{Type: EventPartStart, Index: 6, Part: PartText},
		{Type: EventPartDelta, Index: 6, Text: "I can't help with that."},
		{Type: EventPartStop, Index: 6},
		{Type: EventStop, StopReason: mapping.StopRefusal, StopDetails: StopDetails{Category: "cyber", Explanation: "Malware."}},
		{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 20, CacheReadTokens: 5, OutputTokens: 50, ReasoningTokens: 30}},
		{Type: EventEnd},
	}
}

func TestAnthropicStreamEncodeReasoning(t *testing.T) {
	evs := anthropicThinkingEvents()
	checkWellFormed(t, evs)
	got := encodeStream(AnthropicMessages, &Request{Model: "m"}, evs)
	anthropicCheckSSE(t, got)
	anthropicCheckSSEGolden(t, "thinking", []byte(got))
	if v := encodeStream(VertexAnthropic, &Request{Model: "m"}, evs); v != got {
		t.Errorf("vertex-anthropic stream differs:\n%s", v)
	}
	// Decoded by llmbridge as an upstream, the stream gives back the text,
	// the stop details, and every signature as a continuation token; read
	// back as a client's history, the tokens give the original parts.
	back := anthropicDecode(t, AnthropicMessages, got, nil)
	checkWellFormed(t, back)
	parts := anthropicReasoning(back)
	want := []Part{
		{Type: PartReasoning, Text: "Thinking about \"it\". More.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
		{Type: PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
		{Type: PartReasoning, Text: "A summary.", Signature: "gAAAA==", Origin: mapping.FamilyOpenAI, ItemID: "rs_9"},
		{Type: PartReasoning, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
		{Type: PartReasoning, Text: "Unsigned."},
	}
	if len(parts) != len(want) {
		t.Fatalf("reasoning parts %+v", parts)
	}
	for i := range parts {
		var p Part
		p.Type, p.Text = PartReasoning, parts[i].Text
		p.Redacted = parts[i].Redacted
		if err := readOpaque(&p, parts[i].Signature, mapping.FamilyAnthropic, "x"); err != nil {
			t.Fatal(err)
		}
		if !equalDecoded(p, want[i]) {
			t.Errorf("part %d: %+v, want %+v", i, p, want[i])
		}
	}
	s := summarize(back)
	if s.Stop != mapping.StopRefusal || !s.Complete || s.Usage.ReasoningTokens != 30 || s.Usage.CacheReadTokens != 5 {
		t.Errorf("summary %+v", s)
	}
	for _, ev := range back {
		if ev.Type == EventStop && ev.StopDetails != (StopDetails{Category: "cyber", Explanation: "Malware."}) {
			t.Errorf("stop details %+v", ev.StopDetails)
		}
	}
}

// TestAnthropicStreamEncodeReasoningEdges covers reasoning parts that end
// the stream or are interrupted.
func TestAnthropicStreamEncodeReasoningEdges(t *testing.T) {
	tests := []struct {
		name string
		evs  []Event
		want []string // event names, in order
	}{
		{"thinking open at the end is closed", []Event{{Type: EventStart}, {Type: EventPartStart, Part: PartReasoning},
			{Type: EventPartDelta, Text: "x"}, {Type: EventEnd}},
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}},
		{"redacted open at an error writes nothing", []Event{{Type: EventStart}, {Type: EventPartStart, Part: PartReasoning, Redacted: true},
			{Type: EventError, Err: &Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "cut"}}},
			[]string{"message_start", "error"}},
		{"redacted followed by text", []Event{{Type: EventStart}, {Type: EventPartStart, Part: PartReasoning, Redacted: true},
			{Type: EventPartStart, Index: 1, Part: PartText}, {Type: EventPartDelta, Index: 1, Text: "t"}, {Type: EventEnd}},
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := encodeStream(AnthropicMessages, &Request{Model: "m"}, tt.evs)
			var names []string
			for _, e := range anthropicReadEvents(t, body) {
				names = append(names, e.name)
			}
			if !equalDecoded(names, tt.want) {
				t.Errorf("events %q\n%s", names, body)
			}
			if strings.Count(body, `"index":1`) > 0 {
				t.Errorf("block numbering skipped an index:\n%s", body)
			}
		})
	}
}

// TestAnthropicReasoningRoundTrip sends reasoning with a Gemini signature to
// an Anthropic client, as a JSON response and as a stream, and feeds the
// thinking block the client got back as history: it decodes to the same
// reasoning part, so that it can go back to a Gemini upstream.
func TestAnthropicReasoningRoundTrip(t *testing.T) {
	parts := []Part{
		{Type: PartReasoning, Text: "Gemini thought.", Signature: "CiQB/gem+sig==", Origin: mapping.FamilyGemini},
		{Type: PartReasoning, Signature: "Eo0B", Origin: mapping.FamilyGemini},
		{Type: PartReasoning, Text: "OpenAI summary.", Signature: "gAAAAB", Origin: mapping.FamilyOpenAI, ItemID: "rs_abc"},
		{Type: PartReasoning, Redacted: true, Signature: "EmwKAhgB", Origin: mapping.FamilyAnthropic},
	}
	for _, part := range parts {
		resp := &Response{ID: "msg_1", Model: "m", StopReason: mapping.StopEnd, Content: []Part{part, {Type: PartText, Text: "ok"}}}
		jsonBody, err := AppendResponse(nil, AnthropicMessages, resp)
		if err != nil {
			t.Fatal(err)
		}
		evs := AppendResponseEvents(nil, resp)
		// AppendResponseEvents carries no signature (a shared limitation):
		// put the part's opaque state on its events as a decoder would.
		evs[1].Redacted, evs[1].ItemID = part.Redacted, part.ItemID
		for i := range evs {
			if evs[i].Type == EventPartStop && evs[i].Index == 0 {
				evs[i].Signature, evs[i].Origin = part.Signature, part.Origin
			}
		}
		streamBody := encodeStream(AnthropicMessages, &Request{Model: "m"}, evs)
		// The client's SDK assembles the block; it sends it back as is.
		fromStream := anthropicSDKMessage(t, streamBody).Content[0].RawJSON()
		fromJSON := gjson.GetBytes(jsonBody, "content.0").Raw
		for name, block := range map[string]string{"json": fromJSON, "stream": fromStream} {
			var req Request
			body := anthropicHistoryBody("assistant", block)
			if err := DecodeRequest(AnthropicMessages, []byte(body), &req); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, block)
			}
			if got := req.Messages[1].Parts[0]; !equalDecoded(got, part) {
				t.Errorf("%s: %+v\nwant %+v", name, got, part)
			}
			// Toward Anthropic only its own value goes; the others are dropped.
			out, err := anthropicEncodeRequest(t, AnthropicMessages, &req, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sent := strings.Contains(out, part.Signature)
			if sent != (part.Origin == mapping.FamilyAnthropic) || sent == (len(req.Dropped) == 1) {
				t.Errorf("%s: sent %v, dropped %q: %s", name, sent, req.Dropped, out)
			}
		}
	}
}

// anthropicSDKMessage assembles an encoded stream with anthropic-sdk-go's
// own event types and Message.Accumulate, as an Anthropic client does.
func anthropicSDKMessage(t *testing.T, body string) anthropic.Message {
	t.Helper()
	var msg anthropic.Message
	for _, e := range anthropicReadEvents(t, body) {
		var ev anthropic.MessageStreamEventUnion
		if err := ev.UnmarshalJSON([]byte(e.data)); err != nil {
			t.Fatalf("%s: %v", e.data, err)
		}
		if err := msg.Accumulate(ev); err != nil {
			t.Fatalf("accumulate %s: %v", e.data, err)
		}
	}
	return msg
}

// TestAnthropicSDKAccumulatesReasoning checks what anthropic-sdk-go makes of
// the encoded reasoning stream and JSON body: thinking text, signature
// tokens, redacted data and stop details all arrive.
func TestAnthropicSDKAccumulatesReasoning(t *testing.T) {
	evs := anthropicThinkingEvents()
	msg := anthropicSDKMessage(t, encodeStream(AnthropicMessages, &Request{Model: "m"}, evs))
	var jsonMsg anthropic.Message
	resp := &Response{ID: "msg_think", Model: "m-1", StopReason: mapping.StopRefusal, StopDetails: StopDetails{Category: "cyber", Explanation: "Malware."},
		Content: []Part{
			{Type: PartReasoning, Text: "Thinking about \"it\". More.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
			{Type: PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
			{Type: PartReasoning, Text: "A summary.", Signature: "gAAAA==", Origin: mapping.FamilyOpenAI, ItemID: "rs_9"},
			{Type: PartReasoning, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
			{Type: PartReasoning, Text: "Unsigned."},
			{Type: PartText, Text: "I can't help with that."},
		}}
	body, err := AppendResponse(nil, AnthropicMessages, resp)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonMsg.UnmarshalJSON(body); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]anthropic.Message{"stream": msg, "json": jsonMsg} {
		if len(m.Content) != 6 {
			t.Fatalf("%s: %d blocks: %s", name, len(m.Content), m.RawJSON())
		}
		for i, part := range resp.Content[:5] {
			b := m.Content[i]
			value := b.Signature
			if part.Redacted {
				value = b.Data
				if b.Type != "redacted_thinking" {
					t.Errorf("%s: block %d type %s", name, i, b.Type)
				}
			} else if b.Type != "thinking" || b.Thinking != part.Text {
				t.Errorf("%s: block %d %s %q", name, i, b.Type, b.Thinking)
			}
			var got Part
			got.Type, got.Text, got.Redacted = PartReasoning, b.Thinking, part.Redacted
			if err := readOpaque(&got, value, mapping.FamilyAnthropic, "x"); err != nil || !equalDecoded(got, part) {
				t.Errorf("%s: block %d reads back as %+v (%v), want %+v", name, i, got, err, part)
			}
		}
		if m.Content[5].Text != "I can't help with that." || m.StopReason != "refusal" ||
			m.StopDetails.Category != "cyber" || m.StopDetails.Explanation != "Malware." {
			t.Errorf("%s: text %q stop %s details %+v", name, m.Content[5].Text, m.StopReason, m.StopDetails)
		}
	}
	if msg.Usage.OutputTokensDetails.ThinkingTokens != 30 || msg.Usage.CacheReadInputTokens != 5 || msg.Usage.InputTokens != 15 {
		t.Errorf("stream usage %+v", msg.Usage)
	}
}

// anthropicRecordedReasoning reads the reasoning a recorded stream holds
// straight from its events, independently of the decoder: thinking text and
// signatures joined per block, redacted data as is. Blocks after the first
// one the codec cannot translate are not counted.
func anthropicRecordedReasoning(t *testing.T, body string) []Part {
	var parts []Part
	at := map[int64]int{}
events:
	for _, e := range anthropicReadEvents(t, body) {
		d := gjson.Parse(e.data)
		switch e.name {
		case "content_block_start":
			b := d.Get("content_block")
			switch b.Get("type").Str {
			case "thinking":
				at[d.Get("index").Int()] = len(parts)
				parts = append(parts, Part{Type: PartReasoning, Text: b.Get("thinking").Str, Signature: b.Get("signature").Str})
			case "redacted_thinking":
				parts = append(parts, Part{Type: PartReasoning, Redacted: true, Signature: b.Get("data").Str})
			case "text", "tool_use":
			default:
				break events
			}
		case "content_block_delta":
			k, ok := at[d.Get("index").Int()]
			if !ok {
				continue
			}
			parts[k].Text += d.Get("delta.thinking").Str
			parts[k].Signature += d.Get("delta.signature").Str
		}
	}
	for i := range parts {
		if parts[i].Signature != "" {
			parts[i].Origin = mapping.FamilyAnthropic
		}
	}
	return parts
}

// TestAnthropicStreamDecodeRecordedReasoning replays every recorded stream
// of both Anthropic protocols and compares the reasoning parts the decoder
// produces with those read from the events directly: same text, same
// signature and redacted data byte for byte, Anthropic as their origin.
func TestAnthropicStreamDecodeRecordedReasoning(t *testing.T) {
	skipWithoutRecordings(t)
	wantCounts := map[string]int{
		"anthropic-messages/claude-sonnet-4-thinking-tool-call-stream.json":      1,
		"anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json": 1,
		"anthropic-messages/claude-sonnet-4-5-redacted-thinking-stream.json":     2,
		"anthropic-messages/claude-sonnet-4-thinking-followup-stream.json":       0,
		"vertex-anthropic/claude-3-7-sonnet-tool-call-stream.json":               0,
		"anthropic-messages/claude-sonnet-4-5-tool-no-args-stream-reframed.json": 0,
	}
	seen := 0
	for _, tt := range anthropicRecordedStreams {
		t.Run(tt.file, func(t *testing.T) {
			p, body := anthropicStreamRecording(t, tt.file)
			got := anthropicReasoning(anthropicDecode(t, p, body, nil))
			want := anthropicRecordedReasoning(t, body)
			if len(got) != len(want) {
				t.Fatalf("%d reasoning parts, want %d", len(got), len(want))
			}
			for i := range got {
				// Recorded signatures are long: report where, not what.
				if !equalDecoded(got[i], want[i]) {
					t.Errorf("part %d differs: text %d/%d bytes, signature %d/%d bytes, origin %v, redacted %v",
						i, len(got[i].Text), len(want[i].Text), len(got[i].Signature), len(want[i].Signature), got[i].Origin, got[i].Redacted)
				}
			}
			for _, part := range got {
				if part.Signature == "" || (!part.Redacted && part.Text == "") {
					t.Errorf("recorded reasoning without signature or text: %+v", part)
				}
			}
			if n, ok := wantCounts[tt.file]; ok {
				seen++
				if len(got) != n {
					t.Errorf("%d reasoning parts, want %d", len(got), n)
				}
			}
		})
	}
	if seen != len(wantCounts) {
		t.Errorf("%d of the expected recordings were replayed", seen)
	}
}

// TestAnthropicRecordedPauseTurn checks the pause_turn recording's end:
// after the thinking (signed) and the text, the server tool block cannot be
// translated and ends the stream with an error, never a truncation; its
// message_delta, read on its own, is a pause with null stop details and
// thinking tokens in the usage.
func TestAnthropicRecordedPauseTurn(t *testing.T) {
	p, body := anthropicStreamRecording(t, "anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json")
	var start, delta string
	for _, e := range anthropicReadEvents(t, body) {
		switch e.name {
		case "message_start":
			start = e.data
		case "message_delta":
			delta = e.data
		}
	}
	evs := anthropicDecode(t, p, anthropicEv("message_start", start)+anthropicEv("message_delta", delta)+anthropicMsgStop, nil)
	want := `start(msg_01SC6GnkBDsmEDqyXQpQ2ipm,claude-sonnet-4-5-20250929,2479/0/0/6/0) stop(pause_turn,"") usage(404500/0/0/943/261) end`
	if got := anthropicFormat(evs); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestAnthropicThinkingDeltaAllocations guards the reasoning hot path: a
// thinking_delta is decoded and encoded without allocating, like text.
func TestAnthropicThinkingDeltaAllocations(t *testing.T) {
	dec := newAnthropicStreamDecoder(AnthropicMessages)
	enc := newAnthropicStreamEncoder(&Request{Model: "claude-x"})
	var dst []byte
	for _, e := range anthropicReadEvents(t, anthropicMsgStart+anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`)) {
		for _, ev := range dec.Decode(nil, []byte(e.name), []byte(e.data), false) {
			dst = enc.Encode(dst, &ev)
		}
	}
	name := []byte("content_block_delta")
	data := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" weather \"information\" for"}}`)
	out := make([]Event, 0, 4)
	allocs := testing.AllocsPerRun(200, func() {
		out = dec.Decode(out[:0], name, data, false)
		dst = enc.Encode(dst[:0], &out[0])
	})
	if allocs > 0 {
		t.Errorf("%v allocations per thinking delta (decode+encode)", allocs)
	}
	if !strings.Contains(string(dst), `"thinking":" weather \"information\" for"`) {
		t.Errorf("encoded %s", dst)
	}
}
