package anthropic

import (
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// thinkingEvents is a canonical stream with reasoning from several
// families, text and a refusal stop with details.
func thinkingEvents() []codec.Event {
	return []codec.Event{
		{Type: codec.EventStart, ID: "msg_think", Model: "m-1", Usage: codec.Usage{Known: true, InputTokens: 20, CacheReadTokens: 5, OutputTokens: 1}},
		{Type: codec.EventPartStart, Index: 0, Part: codec.PartReasoning},
		{Type: codec.EventPartDelta, Index: 0, Text: "Thinking about \"it\"."},
		{Type: codec.EventPartDelta, Index: 0, Text: " More."},
		{Type: codec.EventPartStop, Index: 0, Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
		{Type: codec.EventPartStart, Index: 1, Part: codec.PartReasoning, Redacted: true},
		{Type: codec.EventPartDelta, Index: 1, Text: "ignored: redacted reasoning has no text"},
		{Type: codec.EventPartStop, Index: 1, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
		{Type: codec.EventPartStart, Index: 2, Part: codec.PartReasoning, ItemID: "rs_9"},
		{Type: codec.EventPartDelta, Index: 2, Text: "A summary."},
		{Type: codec.EventPartStop, Index: 2, Signature: "gAAAA==", Origin: mapping.FamilyOpenAI},
		{Type: codec.EventPartStart, Index: 3, Part: codec.PartReasoning},
		{Type: codec.EventPartStop, Index: 3, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
		{Type: codec.EventPartStart, Index: 4, Part: codec.PartReasoning},
		{Type: codec.EventPartDelta, Index: 4, Text: "Unsigned."},
		{Type: codec.EventPartStop, Index: 4},
		{Type: codec.EventPartStart, Index: 5, Part: codec.PartReasoning, Redacted: true},
		{Type: codec.EventPartStop, Index: 5}, // redacted without data: nothing to write
		{Type: codec.EventPartStart, Index: 6, Part: codec.PartText},
		{Type: codec.EventPartDelta, Index: 6, Text: "I can't help with that."},
		{Type: codec.EventPartStop, Index: 6},
		{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Category: "cyber", Explanation: "Malware."}},
		{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 20, CacheReadTokens: 5, OutputTokens: 50, ReasoningTokens: 30}},
		{Type: codec.EventEnd},
	}
}

func TestAnthropicStreamEncodeReasoning(t *testing.T) {
	evs := thinkingEvents()
	codectest.CheckWellFormed(t, evs)
	got := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, evs)
	checkSSE(t, got)
	checkSSEGolden(t, "thinking", []byte(got))
	if v := codectest.EncodeStream(codec.VertexAnthropic, &codec.Request{Model: "m"}, evs); v != got {
		t.Errorf("vertex-anthropic stream differs:\n%s", v)
	}
	// Decoded by llmbridge as an upstream, the stream gives back the text,
	// the stop details, and every signature as a continuation token; read
	// back as a client's history, the tokens give the original parts.
	back := decode(t, codec.AnthropicMessages, got, nil)
	codectest.CheckWellFormed(t, back)
	parts := reasoning(back)
	want := []codec.Part{
		{Type: codec.PartReasoning, Text: "Thinking about \"it\". More.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
		{Type: codec.PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
		{Type: codec.PartReasoning, Text: "A summary.", Signature: "gAAAA==", Origin: mapping.FamilyOpenAI, ItemID: "rs_9"},
		{Type: codec.PartReasoning, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
		{Type: codec.PartReasoning, Text: "Unsigned."},
	}
	if len(parts) != len(want) {
		t.Fatalf("reasoning parts %+v", parts)
	}
	for i := range parts {
		var p codec.Part
		p.Type, p.Text = codec.PartReasoning, parts[i].Text
		p.Redacted = parts[i].Redacted
		if err := wire.ReadOpaque(&p, parts[i].Signature, mapping.FamilyAnthropic, "x"); err != nil {
			t.Fatal(err)
		}
		if !codectest.EqualDecoded(p, want[i]) {
			t.Errorf("part %d: %+v, want %+v", i, p, want[i])
		}
	}
	s := codectest.Summarize(back)
	if s.Stop != mapping.StopRefusal || !s.Complete || s.Usage.ReasoningTokens != 30 || s.Usage.CacheReadTokens != 5 {
		t.Errorf("summary %+v", s)
	}
	for _, ev := range back {
		if ev.Type == codec.EventStop && ev.StopDetails != (codec.StopDetails{Category: "cyber", Explanation: "Malware."}) {
			t.Errorf("stop details %+v", ev.StopDetails)
		}
	}
}

// TestAnthropicStreamEncodeReasoningEdges covers reasoning parts that end
// the stream or are interrupted.
func TestAnthropicStreamEncodeReasoningEdges(t *testing.T) {
	tests := []struct {
		name string
		evs  []codec.Event
		want []string // event names, in order
	}{
		{"thinking open at the end is closed", []codec.Event{{Type: codec.EventStart}, {Type: codec.EventPartStart, Part: codec.PartReasoning},
			{Type: codec.EventPartDelta, Text: "x"}, {Type: codec.EventEnd}},
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}},
		{"redacted open at an error writes nothing", []codec.Event{{Type: codec.EventStart}, {Type: codec.EventPartStart, Part: codec.PartReasoning, Redacted: true},
			{Type: codec.EventError, Err: &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "cut"}}},
			[]string{"message_start", "error"}},
		{"redacted followed by text", []codec.Event{{Type: codec.EventStart}, {Type: codec.EventPartStart, Part: codec.PartReasoning, Redacted: true},
			{Type: codec.EventPartStart, Index: 1, Part: codec.PartText}, {Type: codec.EventPartDelta, Index: 1, Text: "t"}, {Type: codec.EventEnd}},
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, tt.evs)
			var names []string
			for _, e := range readEvents(t, body) {
				names = append(names, e.name)
			}
			if !codectest.EqualDecoded(names, tt.want) {
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
	parts := []codec.Part{
		{Type: codec.PartReasoning, Text: "Gemini thought.", Signature: "CiQB/gem+sig==", Origin: mapping.FamilyGemini},
		{Type: codec.PartReasoning, Signature: "Eo0B", Origin: mapping.FamilyGemini},
		{Type: codec.PartReasoning, Text: "OpenAI summary.", Signature: "gAAAAB", Origin: mapping.FamilyOpenAI, ItemID: "rs_abc"},
		{Type: codec.PartReasoning, Redacted: true, Signature: "EmwKAhgB", Origin: mapping.FamilyAnthropic},
	}
	for _, part := range parts {
		resp := &codec.Response{ID: "msg_1", Model: "m", StopReason: mapping.StopEnd, Content: []codec.Part{part, {Type: codec.PartText, Text: "ok"}}}
		jsonBody, err := codec.AppendResponse(nil, codec.AnthropicMessages, resp)
		if err != nil {
			t.Fatal(err)
		}
		evs := codec.AppendResponseEvents(nil, resp)
		// AppendResponseEvents carries no signature (a shared limitation):
		// put the part's opaque state on its events as a decoder would.
		evs[1].Redacted, evs[1].ItemID = part.Redacted, part.ItemID
		for i := range evs {
			if evs[i].Type == codec.EventPartStop && evs[i].Index == 0 {
				evs[i].Signature, evs[i].Origin = part.Signature, part.Origin
			}
		}
		streamBody := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, evs)
		// The client's SDK assembles the block; it sends it back as is.
		fromStream := sdkMessage(t, streamBody).Content[0].RawJSON()
		fromJSON := gjson.GetBytes(jsonBody, "content.0").Raw
		for name, block := range map[string]string{"json": fromJSON, "stream": fromStream} {
			var req codec.Request
			body := historyBody("assistant", block)
			if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(body), &req); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, block)
			}
			if got := req.Messages[1].Parts[0]; !codectest.EqualDecoded(got, part) {
				t.Errorf("%s: %+v\nwant %+v", name, got, part)
			}
			// Toward Anthropic only its own value goes; the others are dropped.
			out, err := encodeRequest(t, codec.AnthropicMessages, &req, codec.EncodeOptions{})
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

// sdkMessage assembles an encoded stream with anthropic-sdk-go's
// own event types and Message.Accumulate, as an Anthropic client does.
func sdkMessage(t *testing.T, body string) anthropic.Message {
	t.Helper()
	var msg anthropic.Message
	for _, e := range readEvents(t, body) {
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
	evs := thinkingEvents()
	msg := sdkMessage(t, codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, evs))
	var jsonMsg anthropic.Message
	resp := &codec.Response{ID: "msg_think", Model: "m-1", StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Category: "cyber", Explanation: "Malware."},
		Content: []codec.Part{
			{Type: codec.PartReasoning, Text: "Thinking about \"it\". More.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Text: "A summary.", Signature: "gAAAA==", Origin: mapping.FamilyOpenAI, ItemID: "rs_9"},
			{Type: codec.PartReasoning, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
			{Type: codec.PartReasoning, Text: "Unsigned."},
			{Type: codec.PartText, Text: "I can't help with that."},
		}}
	body, err := codec.AppendResponse(nil, codec.AnthropicMessages, resp)
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
			var got codec.Part
			got.Type, got.Text, got.Redacted = codec.PartReasoning, b.Thinking, part.Redacted
			if err := wire.ReadOpaque(&got, value, mapping.FamilyAnthropic, "x"); err != nil || !codectest.EqualDecoded(got, part) {
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

// recordedReasoning reads the reasoning a recorded stream holds
// straight from its events, independently of the decoder: thinking text and
// signatures joined per block, redacted data as is. Blocks after the first
// one the codec cannot translate are not counted.
func recordedReasoning(t *testing.T, body string) []codec.Part {
	var parts []codec.Part
	at := map[int64]int{}
events:
	for _, e := range readEvents(t, body) {
		d := gjson.Parse(e.data)
		switch e.name {
		case "content_block_start":
			b := d.Get("content_block")
			switch b.Get("type").Str {
			case "thinking":
				at[d.Get("index").Int()] = len(parts)
				parts = append(parts, codec.Part{Type: codec.PartReasoning, Text: b.Get("thinking").Str, Signature: b.Get("signature").Str})
			case "redacted_thinking":
				parts = append(parts, codec.Part{Type: codec.PartReasoning, Redacted: true, Signature: b.Get("data").Str})
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
	codectest.SkipWithoutRecordings(t)
	wantCounts := map[string]int{
		"anthropic-messages/claude-sonnet-4-thinking-tool-call-stream.json":      1,
		"anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json": 1,
		"anthropic-messages/claude-sonnet-4-5-redacted-thinking-stream.json":     2,
		"anthropic-messages/claude-sonnet-4-thinking-followup-stream.json":       0,
		"vertex-anthropic/claude-3-7-sonnet-tool-call-stream.json":               0,
		"anthropic-messages/claude-sonnet-4-5-tool-no-args-stream-reframed.json": 0,
	}
	seen := 0
	for _, tt := range recordedStreams {
		t.Run(tt.file, func(t *testing.T) {
			p, body := streamRecording(t, tt.file)
			got := reasoning(decode(t, p, body, nil))
			want := recordedReasoning(t, body)
			if len(got) != len(want) {
				t.Fatalf("%d reasoning parts, want %d", len(got), len(want))
			}
			for i := range got {
				// Recorded signatures are long: report where, not what.
				if !codectest.EqualDecoded(got[i], want[i]) {
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
	p, body := streamRecording(t, "anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json")
	var start, delta string
	for _, e := range readEvents(t, body) {
		switch e.name {
		case "message_start":
			start = e.data
		case "message_delta":
			delta = e.data
		}
	}
	evs := decode(t, p, ev("message_start", start)+ev("message_delta", delta)+msgStop, nil)
	want := `start(msg_01SC6GnkBDsmEDqyXQpQ2ipm,claude-sonnet-4-5-20250929,2479/0/0/6/0) stop(pause_turn,"") usage(404500/0/0/943/261) end`
	if got := format(evs); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestAnthropicThinkingDeltaAllocations guards the reasoning hot path: a
// thinking_delta is decoded and encoded without allocating, like text.
func TestAnthropicThinkingDeltaAllocations(t *testing.T) {
	dec := newStreamDecoder(codec.AnthropicMessages)
	enc := newStreamEncoder(codec.AnthropicMessages, &codec.Request{Model: "claude-x"})
	var dst []byte
	for _, e := range readEvents(t, msgStart+blockStart(0, `{"type":"thinking","thinking":"","signature":""}`)) {
		for _, ev := range dec.Decode(nil, []byte(e.name), []byte(e.data), false) {
			dst = enc.Encode(dst, &ev)
		}
	}
	name := []byte("content_block_delta")
	data := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" weather \"information\" for"}}`)
	out := make([]codec.Event, 0, 4)
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
