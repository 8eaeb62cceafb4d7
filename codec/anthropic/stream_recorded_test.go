package anthropic

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/tidwall/gjson"
)

// streamRecording is the upstream protocol and SSE body of a
// streaming recording.
func streamRecording(t testing.TB, file string) (codec.Protocol, string) {
	t.Helper()
	codectest.SkipWithoutRecordings(t)
	b, err := os.ReadFile(filepath.Join(codectest.RecordingsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(b)
	if !r.Get("stream").Bool() || r.Get("response.status").Int() != 200 {
		t.Fatalf("%s is not a successful stream", file)
	}
	return codec.Protocol(r.Get("protocol").Str), r.Get("response.body").Str
}

// recordedStreams are every streaming recording of the two
// Anthropic protocol directories with what a client must end up with.
// Tool calls are asserted with their ids, names and compacted arguments;
// streams with server tools end in an error after the text that preceded
// them; thinking is a reasoning part, whose text is not counted here
// (TestAnthropicStreamDecodeRecordedReasoning checks it).
var recordedStreams = []struct {
	file    string
	id      string
	model   string
	text    string
	stop    codec.StopReason
	usage   codec.Usage // final usage
	calls   []anthropicCall
	errWhat string
	// searches are the queries of the hosted web searches (server tool
	// calls), and results the number of their result parts.
	searches []string
	results  int
}{
	{
		file: "anthropic-messages/claude-sonnet-4-text-stream.json", id: "msg_01R8GdyyLQUhUfyjqSCMbnWg", model: "claude-sonnet-4-20250514",
		text: "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese.",
		stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 16, OutputTokens: 38},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-5-redacted-thinking-stream.json", id: "msg_018XZkwvj9asBiffg3fXt88s", model: "claude-sonnet-4-5-20250929",
		text: "I notice that you've sent what appears to be some kind of test string or command. I don't have any special \"magic string\" triggers or backdoor commands that would expose internal systems or change my behavior.\n\nI'm Claude, an AI assistant created by Anthropic to be helpful, harmless, and honest. How can I assist you today with a legitimate task or question?",
		stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 92, OutputTokens: 189},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-parallel-tools-followup-stream.json", id: "msg_015WPQbJC4ysDAi7LuCD43Fp", model: "claude-sonnet-4-20250514",
		text: "The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6",
		stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 700, OutputTokens: 31},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-thinking-followup-stream.json", id: "msg_01G4mwZgqcFN38A9H8S9pPAA", model: "claude-sonnet-4-20250514",
		text: "The current weather in Florence, Italy is 40°C (104°F). That's quite hot! If you're planning to visit or are currently there, make sure to stay hydrated and seek shade or air conditioning when possible.",
		stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 558, OutputTokens: 51},
	},
	{
		file: "vertex-anthropic/claude-3-7-sonnet-tool-followup-stream.json", id: "msg_vrtx_01YH49AWdpXFqCfoLB7iWx4w", model: "claude-3-7-sonnet-20250219",
		text: "Currently, the weather in Florence, Italy is 40 degrees Celsius (104 degrees Fahrenheit). That's very hot! If you're in Florence or planning to visit soon, make sure to stay hydrated and try to avoid being outdoors during the hottest parts of the day.",
		stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 484, OutputTokens: 65}, // message_delta has output_tokens only
	},
	{
		file: "anthropic-messages/claude-sonnet-4-5-tool-no-args-stream-reframed.json", id: "msg_01GE2RKp1VYsPzdFs3sS9z5S", model: "claude-sonnet-4-5-20250929",
		text: "I'll update the issue list for you.", stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 565, OutputTokens: 48},
		calls: []anthropicCall{{"toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", ""}}, // one empty partial_json: no fragment
	},
	{
		file: "anthropic-messages/claude-sonnet-4-parallel-tools-stream.json", id: "msg_01PSvJdjd5keNSD63VHjYzex", model: "claude-sonnet-4-20250514",
		text: "I'll add and multiply the numbers 2 and 3 for you.", stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 502, OutputTokens: 137},
		calls: []anthropicCall{{"toolu_01UYxUYC2zRPY8wiutnF48eP", "add", `{"a":2,"b":3}`}, {"toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", `{"a":2,"b":3}`}},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-thinking-tool-call-stream.json", id: "msg_01KTBB57LAzaSZs8kMNvfnsY", model: "claude-sonnet-4-20250514",
		text: "", stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 424, OutputTokens: 119},
		calls: []anthropicCall{{"toolu_01Js4AMfx5qpTLhwTusnvT68", "weather", `{"location":"Florence, Italy"}`}}, // after the thinking
	},
	{
		file: "anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json", id: "msg_01SC6GnkBDsmEDqyXQpQ2ipm", model: "claude-sonnet-4-5-20250929",
		text: "I'll run these searches one at a time as requested. Let me start:" +
			"Let me continue with the remaining searches you requested:" + "Now continuing with the remaining searches:",
		stop: mapping.StopPauseTurn, usage: codec.Usage{Known: true, InputTokens: 404500, OutputTokens: 943, ReasoningTokens: 261},
		searches: []string{"San Francisco weather today", "San Francisco sunrise time today", "Golden Gate Bridge traffic today",
			"San Francisco air quality today", "San Francisco events this week", "San Francisco ferry schedule today",
			"prevailing information on quantum computing today", "latest news on the stock market today",
			"latest news on the weather in San Francisco today", "latest news on the traffic in San Francisco today",
			"latest news on the air quality in San Francisco today"},
		results: 10,
	},
	{
		file: "vertex-anthropic/claude-3-7-sonnet-forced-tool-complex-stream.json", id: "msg_vrtx_01CgkZ1g6PHNfBLee3NPfQ1q", model: "claude-3-7-sonnet-20250219",
		text: "", stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 548, OutputTokens: 128},
		calls: []anthropicCall{{"toolu_vrtx_01BqmvunjZwqA9ybjM4QQQDC", "Book", `{"title":"The Lord of the Rings","author":{"name":"J.R.R. Tolkien","nationality":"British"},"genres":["Fantasy","Adventure","Epic"],"published_year":1954}`}},
	},
	{
		file: "vertex-anthropic/claude-3-7-sonnet-tool-call-stream.json", id: "msg_vrtx_015NhGGaKxyd2YQNDWYkNqXk", model: "claude-3-7-sonnet-20250219",
		text: "I'll help you check the weather in Florence, Italy. Let me get that information for you right away.",
		stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 394, OutputTokens: 76},
		calls: []anthropicCall{{"toolu_vrtx_01JhPy9eXqgjLWmUpoCiEkCs", "weather", `{"location":"Florence,Italy"}`}},
	},
}

func TestAnthropicStreamDecodeRecordings(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	// Every streaming recording of both directories is in the table.
	var files []string
	for _, dir := range []string{"anthropic-messages", "vertex-anthropic"} {
		m, _ := filepath.Glob(filepath.Join(codectest.RecordingsDir, dir, "*stream*.json"))
		for _, f := range m {
			files = append(files, dir+"/"+filepath.Base(f))
		}
	}
	if len(files) != len(recordedStreams) {
		t.Errorf("%d streaming recordings, %d in the table", len(files), len(recordedStreams))
	}
	for _, tt := range recordedStreams {
		t.Run(tt.file, func(t *testing.T) {
			p, body := streamRecording(t, tt.file)
			if !(p.Family() == codec.AnthropicMessages) {
				t.Fatalf("protocol %q", p)
			}
			evs := decode(t, p, body, nil)
			codectest.CheckWellFormed(t, evs)
			s := codectest.Summarize(evs)
			calls, text := calls(t, evs)
			if !codectest.EqualDecoded(calls, tt.calls) {
				t.Errorf("tool calls %q, want %q", calls, tt.calls)
			}
			s.Text = text
			if searches, results := searches(t, evs); !codectest.EqualDecoded(searches, tt.searches) || results != tt.results {
				t.Errorf("searches %q and %d results, want %q and %d", searches, results, tt.searches, tt.results)
			}
			if s.ID != tt.id || s.Model != tt.model {
				t.Errorf("id %q model %q", s.ID, s.Model)
			}
			if s.Text != tt.text || s.Refusal != "" {
				t.Errorf("text %q refusal %q, want %q", s.Text, s.Refusal, tt.text)
			}
			if s.Stop != tt.stop || s.StopSeq != "" || s.Usage != tt.usage {
				t.Errorf("stop %v %q usage %+v, want %v %+v", s.Stop, s.StopSeq, s.Usage, tt.stop, tt.usage)
			}
			if tt.errWhat == "" {
				if s.Err != nil || !s.Complete {
					t.Errorf("not complete: %v", s.Err)
				}
				return
			}
			if s.Complete || s.Err == nil || s.Err.Status != 502 || s.Err.Kind != mapping.ErrBadGateway ||
				!strings.Contains(s.Err.Message, tt.errWhat+" cannot be translated yet") {
				t.Errorf("want a not-yet error about %s, got %+v", tt.errWhat, s.Err)
			}
		})
	}
}

// searches returns the queries of the server tool calls in evs and
// the number of server tool results, each with an id and sources.
func searches(t *testing.T, evs []codec.Event) (queries []string, results int) {
	t.Helper()
	open := -1
	var args string
	for _, ev := range evs {
		switch {
		case ev.Type == codec.EventPartStart && ev.Part == codec.PartServerToolCall:
			open, args = ev.Index, ""
			if ev.ToolName != "web_search" || !strings.HasPrefix(ev.ToolCallID, "srvtoolu_") {
				t.Errorf("search call %+v", ev)
			}
		case ev.Type == codec.EventPartStart && ev.Part == codec.PartServerToolResult:
			results++
			if len(ev.Sources) == 0 || !strings.HasPrefix(ev.ToolCallID, "srvtoolu_") {
				t.Errorf("search result %+v", ev)
			}
		case ev.Type == codec.EventPartDelta && ev.Index == open:
			args += ev.Text
		case ev.Type == codec.EventPartStop && ev.Index == open:
			queries, open = append(queries, wire.SearchQuery(args)), -1
		}
	}
	return queries, results
}

// TestAnthropicStreamTruncation closes the decoder after every prefix of
// every recording (cleanly and with a broken connection): the result is
// always well formed and ends with EventEnd only when message_stop was seen.
func TestAnthropicStreamTruncation(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	for _, tt := range recordedStreams {
		p, body := streamRecording(t, tt.file)
		sevs := readEvents(t, body)
		for n := 0; n <= len(sevs); n++ {
			for _, cause := range []error{nil, codectest.ErrTestBroken} {
				dec := codectest.StreamDecoder(p)
				var evs []codec.Event
				sawStop := false
				for _, e := range sevs[:n] {
					evs = detach(evs, dec.Decode(nil, []byte(e.name), []byte(e.data), e.bare))
					sawStop = sawStop || e.name == "message_stop"
				}
				evs = detach(evs, dec.Close(nil, cause))
				codectest.CheckWellFormed(t, evs)
				s := codectest.Summarize(evs)
				complete := sawStop && tt.errWhat == ""
				if s.Complete != complete {
					t.Fatalf("%s after %d events (cause %v): complete %v, want %v", tt.file, n, cause, s.Complete, complete)
				}
				if !s.Complete && s.Err == nil {
					t.Fatalf("%s after %d events: neither end nor error", tt.file, n)
				}
				if !sawStop && tt.errWhat == "" {
					want := "ended before"
					if cause != nil {
						want = "broke off"
					}
					if !strings.Contains(s.Err.Message, want) || s.Err.Status != 502 {
						t.Fatalf("%s after %d events: %+v", tt.file, n, s.Err)
					}
				}
			}
		}
	}
	// Byte-level cuts through the SSE reader, as a broken connection gives
	// them, on two complete recordings.
	for _, file := range []string{"anthropic-messages/claude-sonnet-4-text-stream.json", "vertex-anthropic/claude-3-7-sonnet-tool-followup-stream.json"} {
		p, body := streamRecording(t, file)
		// The stream is complete once message_stop's data line has its
		// line end.
		end := strings.LastIndex(body, "message_stop")
		end += strings.IndexByte(body[end:], '\n')
		for i := 0; i < len(body); i++ {
			evs := decode(t, p, body[:i], nil)
			codectest.CheckWellFormed(t, evs)
			if s := codectest.Summarize(evs); s.Complete != (i > end) {
				t.Fatalf("%s cut at %d: complete %v", file, i, s.Complete)
			}
		}
	}
}

// decodeReader decodes an SSE body read from r.
func decodeReader(t *testing.T, p codec.Protocol, r io.Reader) []codec.Event {
	t.Helper()
	dec := codectest.StreamDecoder(p)
	sr := sse.NewReader(r, 0)
	var out []codec.Event
	var cause error
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			cause = err
			break
		}
		out = detach(out, dec.Decode(nil, ev.Name, ev.Data, ev.Bare))
	}
	return detach(out, dec.Close(nil, cause))
}

// TestAnthropicStreamDecodeOddFraming feeds events split in unusual ways:
// the SSE reader does the framing, the decoder must accept what it yields.
func TestAnthropicStreamDecodeOddFraming(t *testing.T) {
	want := `start(msg_1,claude-x,10/0/0/1/0) part_start(0,0) delta(0,"a\nb") delta(0,"c") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`
	plain := msgStart + textStart(0) + textDelta(0, `"a\nb"`) + textDelta(0, `"c"`) +
		blockStop(0) + endTurn + msgStop
	bodies := map[string]string{
		"plain": plain,
		"CRLF":  strings.ReplaceAll(plain, "\n", "\r\n"),
		"CR":    strings.ReplaceAll(plain, "\n", "\r"),
		"JSON split over data lines, no space after colons, comments, id and retry fields": msgStart +
			": keep-alive\n\n" +
			"event:content_block_start\nid: 7\ndata:{\"type\":\"content_block_start\",\ndata:\"index\":0,\ndata: \"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"retry: 1000\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\ndata:   \"delta\":{\"type\":\"text_delta\",\"text\":\"a\\nb\"}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"c\"}}\nevent: content_block_delta\n\n" +
			blockStop(0) + endTurn + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n",
		"tabs and newlines inside the JSON": msgStart + textStart(0) +
			"event: content_block_delta\ndata: {\t\"type\" : \"content_block_delta\" ,\ndata:  \"index\" : 0 , \"delta\" : {\"text\" : \"a\\nb\", \"type\" : \"text_delta\"}\ndata: }\n\n" +
			textDelta(0, `"c"`) + blockStop(0) + endTurn + msgStop,
	}
	for name, body := range bodies {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(body)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			evs := decodeReader(t, codec.AnthropicMessages, r)
			codectest.CheckWellFormed(t, evs)
			if got := format(evs); got != want {
				t.Errorf("%s (one byte reads %v):\n got %s\nwant %s", name, oneByte, got, want)
			}
		}
	}
}

// TestAnthropicStreamRecordingRoundTrip re-encodes every recorded upstream
// stream for an Anthropic client and decodes it again: the client sees what
// the upstream said.
func TestAnthropicStreamRecordingRoundTrip(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	for _, tt := range recordedStreams {
		p, body := streamRecording(t, tt.file)
		evs := decode(t, p, body, nil)
		out := codectest.EncodeStream(p, &codec.Request{}, evs)
		checkSSE(t, out)
		again := decode(t, codec.AnthropicMessages, out, nil)
		codectest.CheckWellFormed(t, again)
		got, want := codectest.Summarize(again), codectest.Summarize(evs)
		if want.Err != nil {
			if got.Err == nil || got.Err.Message != want.Err.Message {
				t.Errorf("%s: error %+v, want %+v", tt.file, got.Err, want.Err)
			}
			got.Err, want.Err = nil, nil
		}
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, want)
		}
		gotCalls, _ := calls(t, again)
		wantCalls, _ := calls(t, evs)
		if !codectest.EqualDecoded(gotCalls, wantCalls) || len(wantCalls) != len(tt.calls) {
			t.Errorf("%s: tool calls %q, want %q", tt.file, gotCalls, wantCalls)
		}
	}
}
