package bedrock

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// render writes events compactly, one per line, for comparisons.
func render(evs []codec.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(ev.Type.String())
		switch ev.Type {
		case codec.EventPartStart:
			b.WriteString(" " + strconv.Itoa(ev.Index) + " " + ev.Part.String())
			if ev.Redacted {
				b.WriteString(" redacted")
			}
			if ev.ToolCallID != "" {
				b.WriteString(" " + ev.ToolCallID + " " + ev.ToolName)
			}
		case codec.EventPartDelta:
			b.WriteString(" " + strconv.Itoa(ev.Index) + " " + strconv.Quote(ev.Text))
		case codec.EventPartStop:
			b.WriteString(" " + strconv.Itoa(ev.Index))
			if ev.Signature != "" {
				b.WriteString(" " + ev.Signature + "@" + ev.Origin.String())
			}
		case codec.EventStop:
			b.WriteString(" " + ev.StopReason.String())
			if ev.StopSequence != "" {
				b.WriteString(" " + ev.StopSequence)
			}
			if ev.StopDetails.Category != "" {
				b.WriteString(" " + ev.StopDetails.Category)
			}
		case codec.EventUsage:
			u := ev.Usage
			b.WriteString(" " + strconv.FormatInt(u.InputTokens, 10) + "/" + strconv.FormatInt(u.CacheReadTokens, 10) + "/" + strconv.FormatInt(u.OutputTokens, 10))
		case codec.EventError:
			b.WriteString(" " + strconv.Itoa(ev.Err.Status) + " " + mapping.AWSErrorType(ev.Err.Kind) + " " + ev.Err.Code + ": " + ev.Err.Message)
		case codec.EventDropped:
			b.WriteString(" " + ev.Text)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// sseOf writes (name, data) pairs as SSE text.
func sseOf(events ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(events); i += 2 {
		b.WriteString("event: " + events[i] + "\ndata: " + events[i+1] + "\n\n")
	}
	return b.String()
}

func TestStreamDecode(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		cause  error
		want   string
	}{
		{
			name: "text without contentBlockStart, usage after the stop",
			stream: sseOf("messageStart", `{"role":"assistant","p":"abc"}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hel"},"p":"xyz"}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":""}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"lo \"you\""}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`,
				"messageStop", `{"stopReason":"end_turn"}`,
				"metadata", `{"usage":{"inputTokens":3,"outputTokens":2,"totalTokens":10,"cacheReadInputTokens":5},"metrics":{"latencyMs":9}}`),
			want: "start\npart_start 0 text\npart_delta 0 \"Hel\"\npart_delta 0 \"lo \\\"you\\\"\"\npart_stop 0\nstop end\nusage 8/5/2\nend\n",
		},
		{
			name: "reasoning with a signature, redacted reasoning, a tool call",
			stream: sseOf("messageStart", `{"role":"assistant"}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Let me"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":" think."}}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"c2ln"}}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`,
				"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"reasoningContent":{"redactedContent":"c2VjcmV0"}}}`,
				"contentBlockStop", `{"contentBlockIndex":1}`,
				"contentBlockStart", `{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"a\":"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolUse":{"input":"1}"}}}`,
				"contentBlockStop", `{"contentBlockIndex":2}`,
				"messageStop", `{"stopReason":"end_turn"}`,
				"metadata", `{"usage":{"inputTokens":3,"outputTokens":2}}`),
			want: "start\npart_start 0 reasoning\npart_delta 0 \"Let me\"\npart_delta 0 \" think.\"\npart_stop 0 c2ln@anthropic\n" +
				"part_start 1 reasoning redacted\npart_stop 1 c2VjcmV0@anthropic\npart_start 2 tool call t1 f\npart_delta 2 \"{\\\"a\\\":\"\npart_delta 2 \"1}\"\npart_stop 2\n" +
				"stop tool_use\nusage 3/0/2\nend\n",
		},
		{
			name: "a delta of the next block closes the open part; a guardrail; citations; unknown events",
			stream: sseOf("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"A"}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"citation":{"title":"t"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"B"}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`,
				"somethingNew", `{}`,
				"messageStop", `{"stopReason":"guardrail_intervened","additionalModelResponseFields":{"stop_sequence":"X"}}`,
				"metadata", `{"metrics":{"latencyMs":1}}`),
			want: "start\npart_start 0 text\npart_delta 0 \"A\"\ndropped citation\npart_stop 0\npart_start 1 text\npart_delta 1 \"B\"\npart_stop 1\n" +
				"stop content_filter X guardrail_intervened\nend\n",
		},
		{
			name:   "truncated before messageStop",
			stream: sseOf("messageStart", `{"role":"assistant"}`, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"A"}}`),
			cause:  errors.New("reset"),
			want:   "start\npart_start 0 text\npart_delta 0 \"A\"\nerror 502 InternalServerException : upstream bedrock stream broke off before it was complete\n",
		},
		{
			name: "exceptions",
			stream: sseOf("messageStart", `{"role":"assistant"}`,
				"exception:throttlingException", `{"message":"Too many requests"}`,
				"messageStop", `{"stopReason":"end_turn"}`),
			want: "start\nerror 429 ThrottlingException ThrottlingException: Too many requests\n",
		},
		{
			name:   "an exception whose data is not JSON",
			stream: sseOf("exception:validationException", `oops`),
			want:   "error 400 ValidationException ValidationException: upstream bedrock stream failed with ValidationException\n",
		},
		{
			name:   "an error message",
			stream: sseOf("error:InternalFailure", `Something broke`),
			want:   "error 500 InternalServerException InternalFailure: Something broke\n",
		},
		{
			name:   "an exception without a message",
			stream: sseOf("exception:modelStreamErrorException", `{}`),
			want:   "error 500 InternalServerException ModelStreamErrorException: upstream bedrock stream failed with ModelStreamErrorException\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := codectest.DecodeStream(t, codec.Bedrock, tt.stream, tt.cause)
			codectest.CheckWellFormed(t, evs)
			if got := render(evs); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestStreamDecodeInvalid(t *testing.T) {
	for _, tt := range [][2]string{
		{"messageStart", `not json`},
		{"messageStart", `[]`},
		{"contentBlockStart", `{"start":{"toolUse":{"toolUseId":"t","name":"f"}}}`},
		{"contentBlockStart", `{"contentBlockIndex":0}`},
		{"contentBlockStart", `{"contentBlockIndex":0,"start":{"image":{}}}`},
		{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t"}}}`},
		{"contentBlockDelta", `{"delta":{"text":"a"}}`},
		{"contentBlockDelta", `{"contentBlockIndex":-1,"delta":{"text":"a"}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":1}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"image":{}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":1}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"other":"x"}}}`},
		{"contentBlockStop", `{}`},
		{"messageStop", `{}`},
		{"metadata", `{"usage":{"inputTokens":"x"}}`},
	} {
		d := newConverseStreamDecoder(codec.Bedrock)
		evs := d.Decode(nil, []byte(tt[0]), []byte(tt[1]), false)
		if len(evs) == 0 || evs[len(evs)-1].Type != codec.EventError || evs[len(evs)-1].Err.Status != 502 {
			t.Errorf("%s %s: %s", tt[0], tt[1], render(evs))
		}
		if more := d.Decode(nil, []byte("messageStart"), []byte(`{}`), false); len(more) != 0 || len(d.Close(nil, nil)) != 0 {
			t.Errorf("%s %s: events after the error", tt[0], tt[1])
		}
	}
	// Nothing but metadata may follow messageStop.
	d := newConverseStreamDecoder(codec.Bedrock)
	d.Decode(nil, []byte("messageStop"), []byte(`{"stopReason":"end_turn"}`), false)
	if evs := d.Decode(nil, []byte("contentBlockDelta"), []byte(`{"contentBlockIndex":0,"delta":{"text":"a"}}`), false); evs[0].Type != codec.EventError {
		t.Errorf("after stop: %s", render(evs))
	}
	// A stream that reached messageStop but not its metadata, the last
	// event, was cut short, as CheckEvent says for passthrough streams.
	for _, cause := range []error{nil, errors.New("reset")} {
		d = newConverseStreamDecoder(codec.Bedrock)
		d.Decode(nil, []byte("messageStop"), []byte(`{"stopReason":"max_tokens"}`), false)
		if evs := d.Close(nil, cause); len(evs) != 1 || evs[0].Type != codec.EventError || evs[0].Err.Kind != mapping.ErrBadGateway {
			t.Errorf("close after stop (cause %v): %s", cause, render(evs))
		}
		if _, terminal := (converseCodec{}).CheckEvent(codec.Bedrock, "messageStop", `{"stopReason":"max_tokens"}`, false); terminal {
			t.Errorf("CheckEvent takes messageStop for the terminal event")
		}
	}
	// Metadata before messageStop reports usage and does not end the stream.
	d = newConverseStreamDecoder(codec.Bedrock)
	if evs := d.Decode(nil, []byte("metadata"), []byte(`{"usage":{"inputTokens":1}}`), false); render(evs) != "start\nusage 1/0/0\n" {
		t.Errorf("early metadata: %s", render(evs))
	}
	if evs := d.Close(nil, nil); evs[0].Type != codec.EventError || evs[0].Err.Kind != mapping.ErrBadGateway {
		t.Errorf("truncation: %s", render(evs))
	}
}

func TestCheckEvent(t *testing.T) {
	c := converseCodec{}
	for _, tt := range []struct {
		name, data      string
		valid, terminal bool
		usage           bool
	}{
		{"messageStart", `{"role":"assistant"}`, true, false, false},
		{"contentBlockStart", `{}`, true, false, true},
		{"contentBlockDelta", `{}`, true, false, false},
		{"contentBlockStop", `{}`, true, false, false},
		{"messageStop", `{}`, true, false, true},
		{"metadata", `{}`, true, true, true},
		{"exception:validationException", `{"message":"x"}`, true, true, true},
		{"error:InternalFailure", `text`, true, true, true},
		{"other", `{}`, false, false, false},
		{"exception:throttlingException", `oops`, true, true, true},
		{"metadata", `[]`, false, false, true},
	} {
		valid, terminal := c.CheckEvent(codec.Bedrock, tt.name, tt.data, false)
		if valid != tt.valid || terminal != tt.terminal || c.ReportsUsage(codec.Bedrock, tt.name, tt.data) != tt.usage {
			t.Errorf("%s %s: valid %v terminal %v", tt.name, tt.data, valid, terminal)
		}
	}
}
