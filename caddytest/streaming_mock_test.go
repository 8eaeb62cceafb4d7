package caddytest

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// This file gives the mock upstreams their streaming side: they recognise a
// streamed request (and check it asks for the stream the way the real
// provider needs), answer it in the protocol's exact streaming form, and can
// hold back their closing events, fail inside the stream, end it early or
// reset the connection.

// streamRequested reports whether rec asks protocol p for a streamed
// answer: the streaming method in the path for the protocols that name it
// there, "stream": true in the body for the others.
func streamRequested(p proto, rec *recordedRequest) bool {
	if _, _, inPath := p.streamMethod(); inPath {
		return p.isStreamPath(rec.Path)
	}
	return gjson.GetBytes(rec.Body, "stream").Type == gjson.True
}

// validateStreaming returns every way rec's streaming flags are not what
// protocol p needs: Chat streams must ask for the usage chunk
// (stream_options.include_usage: llmbridge must ask for it, as a stream
// without it carries no usage; every Chat client of the suite asks for it
// too, so passthrough requests meet the rule as well), Gemini
// and Vertex streams must ask for SSE (alt=sse; without it Google answers a
// JSON array), Anthropic on Vertex needs :streamRawPredict and
// "stream": true together, and stream is a boolean wherever it appears.
func validateStreaming(p proto, rec *recordedRequest, root gjson.Result) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	stream := root.Get("stream")
	if stream.Exists() && stream.Type != gjson.True && stream.Type != gjson.False {
		bad("stream must be a boolean, got %s", stream.Raw)
	}
	switch p {
	case openaiChat:
		opts := root.Get("stream_options")
		if stream.Type == gjson.True {
			if opts.Get("include_usage").Type != gjson.True {
				bad("a streamed Chat request must set stream_options.include_usage true (stream_options = %s): without it the stream carries no usage", orAbsent(opts))
			}
		} else if opts.Exists() && opts.Type != gjson.Null {
			// What OpenAI answers 400 to.
			bad("stream_options is only allowed when stream is true")
		}
	case vertexAnthropic:
		switch inPath := p.isStreamPath(rec.Path); {
		case inPath && stream.Type != gjson.True:
			bad(`:streamRawPredict needs "stream": true in the body (stream = %s)`, orAbsent(stream))
		case !inPath && stream.Type == gjson.True:
			bad(`"stream": true must be sent to :streamRawPredict, not :rawPredict`)
		}
	case gemini, vertex:
		// A "stream" member is already an unknown field.
		q, err := url.ParseQuery(rec.RawQuery)
		if err != nil {
			bad("query %q does not parse: %v", rec.RawQuery, err)
		}
		if p.isStreamPath(rec.Path) && q.Get("alt") != "sse" {
			bad(":streamGenerateContent without alt=sse (query %q): Google would answer a JSON array, not Server-Sent Events", rec.RawQuery)
		}
	}
	return problems
}

func orAbsent(r gjson.Result) string {
	if !r.Exists() {
		return "absent"
	}
	return r.Raw
}

// streamFailure is how a mock's streamed answer goes wrong, if it does.
type streamFailure int

const (
	// streamComplete is a complete, successful stream.
	streamComplete streamFailure = iota
	// streamInError sends the start and some text, then the protocol's
	// in-stream error: Chat data: {"error":...}; Responses error and
	// response.failed; Anthropic event: error (overloaded_error); Gemini a
	// bare JSON error object.
	streamInError
	// streamTruncatedMid sends the start and some text, then ends the body
	// cleanly: no stop, no usage, no terminal event.
	streamTruncatedMid
	// streamTruncatedEnd sends everything but the terminal event ([DONE],
	// response.completed, message_stop; Gemini: the last chunk comes
	// without its finishReason), then ends the body cleanly.
	streamTruncatedEnd
	// streamReset sends the start and some text, then resets the TCP
	// connection.
	streamReset
	// streamGarbage sends the start and some text, then an event that is
	// not the protocol's (an HTML error page in a data: line), then the
	// rest of a complete stream.
	streamGarbage
)

var streamFailureNames = map[streamFailure]string{
	streamComplete:     "complete",
	streamInError:      "in-stream-error",
	streamTruncatedMid: "truncated-mid-text",
	streamTruncatedEnd: "truncated-before-terminal",
	streamReset:        "connection-reset",
	streamGarbage:      "garbage-event",
}

func (f streamFailure) String() string { return streamFailureNames[f] }

// streamPlan is how a mock answers streamed requests.
type streamPlan struct {
	failure streamFailure
	// flatError makes a Responses upstream send the spec's flat error
	// event ({"type":"error","code","message"}) instead of the nested
	// shape real traffic has ({"type":"error","error":{...}}).
	flatError bool
	// hold, when set, pauses the answer after the text deltas and before
	// the closing events (stop, usage, terminal event; or the failure).
	hold *streamHold
	// holdFor, when set, picks the hold of each streamed request from its
	// body (nil: no hold), instead of hold: the load test holds only the
	// requests it marked for cancellation.
	holdFor func(body []byte) *streamHold
	// pieces is how many deltas the text is split into; 0 means
	// streamTextPieces.
	pieces int
	// fault, for a Bedrock mock, sends a broken event stream message
	// after the start and the text (streaming_awsfaults_test.go).
	fault *frameFault
	// errorFirst, with failure streamInError, sends the in-stream error
	// before any content: after the events that precede the first text
	// (Anthropic's message_start, content_block_start and ping), as an
	// overloaded provider does after its 200 (failover_test.go).
	errorFirst bool
	// throttle makes the in-stream error a rate limit: Anthropic's
	// rate_limit_error event, which Bedrock raises as a
	// throttlingException message, and Converse's throttlingException.
	throttle bool
}

// holdTimeout bounds how long a mock holds back its closing events waiting
// for the test to see the first text delta.
const holdTimeout = 5 * time.Second

// streamHold pauses a mock's streamed answer before its closing events
// until the test releases it, the request is cancelled or a timeout passes.
// It serves one request.
type streamHold struct {
	timeout     time.Duration
	release     chan struct{}
	releaseOnce sync.Once
	// done is closed when the wait has ended; outcome and endedAt are set
	// before it is closed.
	done    chan struct{}
	used    sync.Once
	outcome string
	endedAt time.Time
}

// Hold outcomes.
const (
	holdReleased  = "released by the test"
	holdCancelled = "request context cancelled"
	holdTimedOut  = "timed out"
)

func newStreamHold(timeout time.Duration) *streamHold {
	return &streamHold{timeout: timeout, release: make(chan struct{}), done: make(chan struct{})}
}

// Release lets the mock send its closing events; it may be called any
// number of times.
func (h *streamHold) Release() { h.releaseOnce.Do(func() { close(h.release) }) }

// wait holds the answer; it reports whether the mock should go on writing
// (false when the request was cancelled).
func (h *streamHold) wait(ctx context.Context) bool {
	first := false
	h.used.Do(func() { first = true })
	if !first {
		return true // a hold serves one request
	}
	timer := time.NewTimer(h.timeout)
	defer timer.Stop()
	select {
	case <-h.release:
		h.outcome = holdReleased
	case <-ctx.Done():
		h.outcome = holdCancelled
	case <-timer.C:
		h.outcome = holdTimedOut
	}
	h.endedAt = time.Now()
	close(h.done)
	return h.outcome != holdCancelled
}

// result waits up to d for the hold to end and returns its outcome and
// when it ended.
func (h *streamHold) result(d time.Duration) (string, time.Time, bool) {
	select {
	case <-h.done:
		return h.outcome, h.endedAt, true
	case <-time.After(d):
		return "", time.Time{}, false
	}
}

// setStreamPlan configures how the mock answers streamed requests.
func (m *mockUpstream) setStreamPlan(sp streamPlan) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stream = sp
}

// mockStream is a streamed success answer cut where the tests need it:
// head is the start and the text deltas, tail the closing events, the last
// of which is the terminal event.
type mockStream struct {
	head, tail []string
	// truncatedTail is the tail without its terminal event.
	truncatedTail []string
	// errorTail is the protocol's in-stream error after head.
	errorTail []string
	// sentText is the text head carries.
	sentText string
	// contentType is what the provider sends with its streams.
	contentType string
}

// streamTextPieces is how many deltas the mocks split a text into.
const streamTextPieces = 4

// splitText cuts s into n pieces of about equal length in runes (fewer when
// s is short), never inside a rune.
func splitText(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if runes < n {
		n = max(runes, 1)
	}
	var out []string
	per := (runes + n - 1) / n
	for s != "" {
		i, k := 0, 0
		for i < len(s) && k < per {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// midStreamMessage is the message of the in-stream error a mock of p sends.
func midStreamMessage(p proto) string {
	return "itest: the " + string(p) + " upstream failed mid-stream"
}

// buildStream writes protocol p's streamed success answer for model and r,
// after the real recordings in ../shared/recordings/<protocol>/*-stream*.json:
// the same events, fields and framing, with the text split into several
// deltas and r.Usage in p's own meaning.
func buildStream(p proto, model string, r reply) mockStream {
	return buildStreamPieces(p, model, r, streamTextPieces)
}

// buildStreamPieces is buildStream with the text split into count deltas.
func buildStreamPieces(p proto, model string, r reply, count int) mockStream {
	pieces := splitText(r.Text, count)
	u := r.Usage
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	var s mockStream
	switch p {
	case openaiChat:
		s.contentType = "text/event-stream; charset=utf-8"
		finish := map[string]string{"end": "stop", "max_tokens": "length", "stop_sequence": "stop"}[r.Stop]
		chunk := func(choices, usage, obfuscation string) string {
			return `data: {"id":"chatcmpl-itest0002","object":"chat.completion.chunk","created":1782321890,"model":` + jsonString(model) +
				`,"service_tier":"default","system_fingerprint":"fp_itest01","choices":` + choices + `,"usage":` + usage +
				`,"obfuscation":"` + obfuscation + `"}` + "\n\n"
		}
		choice := func(delta, finish string) string {
			return `[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]`
		}
		s.head = append(s.head, chunk(choice(`{"role":"assistant","content":"","refusal":null}`, "null"), "null", "dcng047mBvo6Hy"))
		for _, piece := range pieces {
			s.head = append(s.head, chunk(choice(`{"content":`+jsonString(piece)+`}`, "null"), "null", "kGEVHK9STFy0L"))
		}
		s.tail = []string{
			chunk(choice(`{}`, `"`+finish+`"`), "null", "EkBNlqIgr3"),
			chunk(`[]`, `{"prompt_tokens":`+n(u.Input)+`,"completion_tokens":`+n(u.Output)+`,"total_tokens":`+n(u.Input+u.Output)+`,`+
				`"prompt_tokens_details":{"cached_tokens":`+n(u.CacheRead)+`,"audio_tokens":0},`+
				`"completion_tokens_details":{"reasoning_tokens":`+n(u.Reasoning)+`,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`, ""),
			"data: [DONE]\n\n",
		}
		s.errorTail = []string{`data: {"error":{"message":` + jsonString(midStreamMessage(p)) + `,"type":"server_error","param":null,"code":null}}` + "\n\n"}

	case openaiResponses:
		s.contentType = "text/event-stream; charset=utf-8"
		seq := 0
		event := func(typ, fields string) string {
			e := "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + `,"sequence_number":` + strconv.Itoa(seq) + "}\n\n"
			seq++
			return e
		}
		const respID, itemID = "resp_itest0002", "msg_itest0002"
		item := func(status, content string) string {
			return `{"id":"` + itemID + `","type":"message","status":"` + status + `","content":[` + content + `],"role":"assistant"}`
		}
		textPart := func(text string) string {
			return `{"type":"output_text","annotations":[],"logprobs":[],"text":` + jsonString(text) + `}`
		}
		status, incomplete, terminal := "completed", "null", "response.completed"
		if r.Stop == "max_tokens" {
			status, incomplete, terminal = "incomplete", `{"reason":"max_output_tokens"}`, "response.incomplete"
		}
		usage := `{"input_tokens":` + n(u.Input) + `,"input_tokens_details":{"cached_tokens":` + n(u.CacheRead) + `},"output_tokens":` + n(u.Output) + `,` +
			`"output_tokens_details":{"reasoning_tokens":` + n(u.Reasoning) + `},"total_tokens":` + n(u.Input+u.Output) + `}`
		s.head = append(s.head,
			event("response.created", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null")),
			event("response.in_progress", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null")),
			event("response.output_item.added", `"item":`+item("in_progress", "")+`,"output_index":0`),
			event("response.content_part.added", `"content_index":0,"item_id":"`+itemID+`","output_index":0,"part":`+textPart("")),
		)
		for _, piece := range pieces {
			s.head = append(s.head, event("response.output_text.delta",
				`"content_index":0,"delta":`+jsonString(piece)+`,"item_id":"`+itemID+`","logprobs":[],"obfuscation":"MWsYL9iUMgwoT","output_index":0`))
		}
		afterHead := seq
		itemStatus := status
		s.tail = []string{
			event("response.output_text.done", `"content_index":0,"item_id":"`+itemID+`","logprobs":[],"output_index":0,"text":`+jsonString(r.Text)),
			event("response.content_part.done", `"content_index":0,"item_id":"`+itemID+`","output_index":0,"part":`+textPart(r.Text)),
			event("response.output_item.done", `"item":`+item(itemStatus, textPart(r.Text))+`,"output_index":0`),
			event(terminal, `"response":`+responsesObject(respID, model, status, incomplete, item(itemStatus, textPart(r.Text)), usage, "null")),
		}
		seq = afterHead
		failed := event("error", `"error":{"type":"server_error","code":"server_error","message":`+jsonString(midStreamMessage(p))+`,"param":null}`)
		s.errorTail = []string{failed,
			event("response.failed", `"response":`+responsesObject(respID, model, "failed", "null", "", "null",
				`{"code":"server_error","message":`+jsonString(midStreamMessage(p))+`}`))}

	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		s.contentType = "text/event-stream; charset=utf-8"
		stop := map[string]string{"end": "end_turn", "max_tokens": "max_tokens", "stop_sequence": "stop_sequence"}[r.Stop]
		seqJSON := "null"
		if r.Stop == "stop_sequence" {
			seqJSON = jsonString(r.StopSequence)
		}
		id := "msg_01ItestItestItestItest02"
		switch p {
		case vertexAnthropic:
			id = "msg_vrtx_01ItestItestItestIt02"
			model = strings.Replace(model, "@", "-", 1)
		case bedrockAnthropic:
			// The events go in event stream chunks (awsStreamFramer).
			s.contentType = eventstream.ContentType
			id = "msg_bdrk_01ItestItestItestIt02"
			model = bedrockVendorModel(model)
		}
		thinking := ""
		if u.ThinkingDetail {
			thinking = `,"output_tokens_details":{"thinking_tokens":` + n(u.Reasoning) + `}`
		}
		// Real servers pad the JSON before its closing brace.
		event := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
		s.head = append(s.head,
			event("message_start", `{"type":"message_start","message":{"model":`+jsonString(model)+`,"id":"`+id+`","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,`+
				`"usage":{"input_tokens":`+n(u.Input-u.CacheRead-u.CacheWrite)+`,"cache_creation_input_tokens":`+n(u.CacheWrite)+`,"cache_read_input_tokens":`+n(u.CacheRead)+`,`+
				`"cache_creation":{"ephemeral_5m_input_tokens":`+n(u.CacheWrite)+`,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}   }`),
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}            }`),
			event("ping", `{"type": "ping"}`),
		)
		for i, piece := range pieces {
			s.head = append(s.head, event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+jsonString(piece)+`}`+strings.Repeat(" ", i%3*4)+`}`))
		}
		s.tail = []string{
			event("content_block_stop", `{"type":"content_block_stop","index":0            }`),
			event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":`+seqJSON+`},`+
				`"usage":{"input_tokens":`+n(u.Input-u.CacheRead-u.CacheWrite)+`,"cache_creation_input_tokens":`+n(u.CacheWrite)+`,"cache_read_input_tokens":`+n(u.CacheRead)+`,"output_tokens":`+n(u.Output)+thinking+`}            }`),
			event("message_stop", `{"type":"message_stop"       }`),
		}
		s.errorTail = []string{event("error", `{"type":"error","error":{"details":null,"type":"overloaded_error","message":`+jsonString(midStreamMessage(p))+`},"request_id":"req_itest0002"}`)}

	case bedrockConverse:
		s = converseStreamPieces(p, r, pieces)
		// The events go in event stream messages (awsStreamFramer).
		s.contentType = eventstream.ContentType
	case gemini, vertex:
		s.contentType = "text/event-stream"
		finish := map[string]string{"end": "STOP", "max_tokens": "MAX_TOKENS", "stop_sequence": "STOP"}[r.Stop]
		candidates := u.Output - u.Reasoning
		fullUsage := func(cands int64) string {
			traffic := ""
			if p == vertex {
				traffic = `,"trafficType": "ON_DEMAND"`
			}
			return `{"promptTokenCount": ` + n(u.Input) + `,"candidatesTokenCount": ` + n(cands) + `,"totalTokenCount": ` + n(u.Input+cands+u.Reasoning) +
				`,"cachedContentTokenCount": ` + n(u.CacheRead) + traffic + `,"promptTokensDetails": [{"modality": "TEXT","tokenCount": ` + n(u.Input) + `}],"thoughtsTokenCount": ` + n(u.Reasoning) + `}`
		}
		tail := `,"modelVersion": ` + jsonString(model) + `,"responseId": "VwCzabneCuzPz7IPitest02"}`
		if p == vertex {
			tail = `,"modelVersion": ` + jsonString(model) + `,"createTime": "2026-03-12T18:05:56.457623Z","responseId": "hACzaZf3G-Tjt8gPitest02"}`
		}
		chunk := func(text, finishField, usage string) string {
			return `data: {"candidates": [{"content": {"role": "model","parts": [{"text": ` + jsonString(text) + `}]}` + finishField + `,"index": 0}],"usageMetadata": ` + usage + tail + "\r\n\r\n"
		}
		for i, piece := range pieces[:len(pieces)-1] {
			// The Gemini API repeats growing usage on every chunk; Vertex
			// sends only the traffic type until the last.
			usage := fullUsage(min(int64(i+1), candidates))
			if p == vertex {
				usage = `{"trafficType": "ON_DEMAND"}`
			}
			s.head = append(s.head, chunk(piece, "", usage))
		}
		last := pieces[len(pieces)-1]
		s.tail = []string{chunk(last, `,"finishReason": "`+finish+`"`, fullUsage(candidates))}
		s.truncatedTail = []string{chunk(last, "", fullUsage(candidates))}
		// Google writes a failure after the stream started as a bare,
		// pretty-printed JSON object without data: (vertex/mid-stream-error-499).
		s.errorTail = []string{"{\n  \"error\": {\n    \"code\": 503,\n    \"message\": " + jsonString(midStreamMessage(p)) + ",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n"}
	case geminiInteractions, vertexInteractions:
		s = interactionsStreamPieces(p, model, r, pieces)
	default:
		panic("unknown protocol " + string(p))
	}
	if s.truncatedTail == nil {
		s.truncatedTail = s.tail[:len(s.tail)-1]
	}
	if p.isGoogle() {
		s.sentText = strings.Join(pieces[:len(pieces)-1], "")
	} else {
		s.sentText = strings.Join(pieces, "")
	}
	return s
}

// responsesObject is a Responses API response object as the stream events
// carry it (after the real gpt-4o-text-stream recording).
func responsesObject(id, model, status, incomplete, output, usage, errJSON string) string {
	completedAt := "null"
	if status != "in_progress" {
		completedAt = "1782321659"
	}
	return `{"id":"` + id + `","object":"response","created_at":1782321657,"status":"` + status + `","background":false,"completed_at":` + completedAt +
		`,"error":` + errJSON + `,"frequency_penalty":0.0,"incomplete_details":` + incomplete + `,"instructions":null,"max_output_tokens":null,"max_tool_calls":null,` +
		`"model":` + jsonString(model) + `,"moderation":null,"output":[` + output + `],"parallel_tool_calls":true,"presence_penalty":0.0,"previous_response_id":null,` +
		`"prompt_cache_key":null,"prompt_cache_retention":"in_memory","reasoning":{"context":null,"effort":null,"summary":null},"safety_identifier":null,` +
		`"service_tier":"default","store":false,"temperature":1.0,"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto","tools":[],` +
		`"top_logprobs":0,"top_p":1.0,"truncation":"disabled","usage":` + usage + `,"user":null,"metadata":{}}`
}

// flatResponsesError is the spec's flat Responses error event, which the
// flatError plan sends instead of the nested one real traffic has.
func flatResponsesError(seq int, message string) string {
	return "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":" + jsonString(message) + `,"param":null,"sequence_number":` + strconv.Itoa(seq) + "}\n\n"
}

// serveStream answers a streamed request with plan.
func (m *mockUpstream) serveStream(w http.ResponseWriter, r *http.Request, gz bool, model string, rep reply, plan streamPlan) {
	pieces := plan.pieces
	if pieces <= 0 {
		pieces = streamTextPieces
	}
	s := buildStreamPieces(m.proto, model, rep, pieces)
	var frames []string
	switch plan.failure {
	case streamComplete:
		frames = s.tail
	case streamInError:
		frames = s.errorTail
		if plan.flatError && m.proto == openaiResponses {
			frames = []string{flatResponsesError(len(s.head), midStreamMessage(m.proto)), s.errorTail[1]}
		}
	case streamTruncatedEnd:
		frames = s.truncatedTail
	case streamGarbage:
		frames = append([]string{"data: <html><body>502 Bad Gateway</body></html>\n\n"}, s.tail...)
	}
	if plan.errorFirst {
		s.head = s.head[:preambleLen(s.head, splitText(rep.Text, pieces)[0])]
	}
	if plan.throttle && plan.failure == streamInError {
		frames = throttleFrames(m.proto, frames)
	}
	sw := startStream(w, gz, http.StatusOK, http.Header{"Content-Type": {s.contentType}})
	sw.aws = newAWSStreamFramer(m.proto)
	if plan.fault != nil && sw.aws != nil {
		plan.fault.serve(r.Context(), sw, s.head)
		return
	}
	for _, f := range s.head {
		if !sw.frame(f) {
			if plan.hold != nil {
				// The client went away before the hold point: the hold
				// still reports when the request's context ends.
				plan.hold.wait(r.Context())
			}
			return
		}
	}
	if plan.hold != nil && !plan.hold.wait(r.Context()) {
		return
	}
	if plan.failure == streamReset {
		sw.reset()
		return
	}
	for _, f := range frames {
		if !sw.frame(f) {
			return
		}
	}
	sw.close()
}

// preambleLen is the number of frames of head before the first that
// carries text, whose first piece is first.
func preambleLen(head []string, first string) int {
	js := jsonString(first)
	for i, f := range head {
		if strings.Contains(f, js[1:len(js)-1]) {
			return i
		}
	}
	return len(head)
}

// throttleFrames is a stream's rate-limit error in protocol p, or
// otherwise its in-stream error frames.
func throttleFrames(p proto, frames []string) []string {
	const msg = "Too many tokens, please wait before trying again."
	switch p {
	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		return []string{"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":" + jsonString(msg) + "}}\n\n"}
	case bedrockConverse:
		return []string{converseEvent("exception:throttlingException", `{"message":`+jsonString(msg)+`}`)}
	}
	return frames
}

// writeFrames answers status and hdr and writes frames one by one, each
// flushed before the next (a replayed recording, split where its events
// end), as an upstream of protocol p frames its streams: a Bedrock mock
// sends the SSE frames as its event stream.
func writeFrames(w http.ResponseWriter, p proto, gz bool, status int, hdr http.Header, frames []string) {
	aws := newAWSStreamFramer(p)
	if aws != nil && status < 300 {
		hdr = hdr.Clone()
		hdr.Set("Content-Type", eventstream.ContentType)
	} else {
		aws = nil
	}
	sw := startStream(w, gz, status, hdr)
	sw.aws = aws
	for _, f := range frames {
		if !sw.frame(f) {
			return
		}
	}
	sw.close()
}

// streamWriter writes an event stream, gzip-compressed when the request
// accepted it (each event is flushed through the compressor), flushing
// every event to the connection.
type streamWriter struct {
	// aws, for a Bedrock mock, writes each SSE frame as Bedrock's event
	// stream; nil writes SSE.
	aws *awsStreamFramer
	w   http.ResponseWriter
	rc  *http.ResponseController
	zw  *gzip.Writer
	out io.Writer
	err error
}

func startStream(w http.ResponseWriter, gz bool, status int, hdr http.Header) *streamWriter {
	for k, vs := range hdr {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Cache-Control", "no-cache")
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), out: w}
	if gz {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Add("Vary", "Accept-Encoding")
		sw.zw = gzip.NewWriter(w)
		sw.out = sw.zw
	}
	w.WriteHeader(status)
	sw.err = sw.rc.Flush()
	return sw
}

// frame writes and flushes one event; it reports whether the client is
// still there.
func (sw *streamWriter) frame(f string) bool {
	if sw.err != nil {
		return false
	}
	if sw.aws != nil {
		f = sw.aws.frame(f)
	}
	return sw.raw([]byte(f))
}

// close ends the body cleanly.
func (sw *streamWriter) close() {
	if sw.zw != nil && sw.err == nil {
		_ = sw.zw.Close()
		_ = sw.rc.Flush()
	}
}

// reset takes the connection over and resets it (RST, not FIN): what a
// provider's load balancer dropping the stream looks like.
func (sw *streamWriter) reset() {
	conn, _, err := sw.rc.Hijack()
	if err != nil {
		panic("mock upstream cannot hijack the connection: " + err.Error())
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// splitFrames cuts an SSE body after every blank line (LF or CRLF framing),
// keeping every byte: concatenated, the frames are the body.
func splitFrames(body string) []string {
	var frames []string
	for body != "" {
		i := strings.Index(body, "\n\n")
		j := strings.Index(body, "\r\n\r\n")
		end := -1
		switch {
		case i >= 0 && (j < 0 || i < j):
			end = i + 2
		case j >= 0:
			end = j + 4
		}
		if end < 0 {
			frames = append(frames, body)
			break
		}
		frames = append(frames, body[:end])
		body = body[end:]
	}
	return frames
}

// isEventStreamHeader reports whether hdr declares an event stream.
func isEventStreamHeader(hdr http.Header) bool {
	return strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream")
}
