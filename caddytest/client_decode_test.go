package caddytest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// outCall is one tool call a client received.
type outCall struct {
	id, name string
	// args is the arguments' JSON text ("" when the call carried none).
	args string
}

// clientOutcome is what a client of one protocol got, read with that
// protocol's own codec (codec.DecodeResponse for a JSON body, the SSE
// reader and codec stream decoder for a stream): the answer's content, its
// stop reason, how a stream ended, and every way the answer is not valid
// in the client's protocol.
type clientOutcome struct {
	// status and contentType are the HTTP status and media type.
	status      int
	contentType string
	// text and refusal are the visible text and refusal text, in order;
	// reasoning is left out.
	text, refusal string
	// calls are the tool calls, in order.
	calls []outCall
	// signatures are the opaque values of the answer's reasoning, taken
	// out of llmbridge's continuation envelopes (see unwrapOpaque).
	signatures []string
	// stop is the stop reason as the client's codec reads it.
	stop mapping.StopReason
	// streamEnd is how a stream ended: "end" (the protocol's end of a
	// complete answer), "error" (its in-stream error) or "" (the body
	// ended without either).
	streamEnd string
	// errMessage is the in-stream error's message.
	errMessage string
	// trailing is the first event after the end of a stream's answer, if
	// any.
	trailing string
	// problems lists the ways the answer is not a valid answer of the
	// client's protocol.
	problems []string
}

// problemf records a way the answer is invalid.
func (o *clientOutcome) problemf(format string, args ...any) {
	o.problems = append(o.problems, fmt.Sprintf(format, args...))
}

// mediaType returns the media type of a Content-Type header, or "".
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// readClientAnswer sends req and reads the whole answer: the outcome of a
// JSON body (read as a response or, with a 4xx/5xx status, left for the
// caller's error checks) or of an event stream, and the body. A transport
// error, including a body that breaks off, is returned as err.
func readClientAnswer(client *http.Client, cp proto, req *http.Request) (clientOutcome, []byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return clientOutcome{}, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	o := clientOutcome{status: resp.StatusCode, contentType: mediaType(resp.Header.Get("Content-Type"))}
	if err != nil {
		return o, body, err
	}
	switch {
	case o.status < 200 || o.status > 299:
	case o.contentType == clientStreamType(cp):
		decodeClientStream(&o, cp, body)
	case o.contentType == "application/json":
		decodeClientJSON(&o, cp, body)
	default:
		o.problemf("Content-Type %q is neither application/json nor text/event-stream", resp.Header.Get("Content-Type"))
	}
	return o, body, nil
}

// decodeClientJSON reads a non-streamed answer of client protocol cp.
func decodeClientJSON(o *clientOutcome, cp proto, body []byte) {
	var resp codec.Response
	if err := codec.DecodeResponse(codec.Protocol(cp), body, &resp); err != nil {
		o.problemf("the body is not a valid %s response: %v", cp, err)
		return
	}
	for i := range resp.Content {
		p := &resp.Content[i]
		switch p.Type {
		case codec.PartText:
			o.text += p.Text
		case codec.PartRefusal:
			o.refusal += p.Text
		case codec.PartToolCall:
			o.addCall(p.ToolCallID, p.ToolName, p.Arguments)
		case codec.PartReasoning:
			o.unwrapOpaque(p.Signature, p.Text)
		}
	}
	o.stop = resp.StopReason
}

// addCall adds a client tool call: its own id, and the opaque values of
// the continuations a Chat client's id carries.
func (o *clientOutcome) addCall(id, name, args string) {
	own, tokens := mapping.SplitToolCallID(id)
	cs, err := mapping.ParseIDEnvelopes(nil, tokens)
	if err != nil {
		o.problemf("a tool-call id with a malformed continuation envelope: %v", err)
	}
	for _, c := range cs {
		o.signatures = append(o.signatures, c.Signature)
	}
	o.calls = append(o.calls, outCall{id: own, name: name, args: args})
}

// unwrapOpaque adds the recorded opaque values that a reasoning part
// carries to the client: envelope tokens in an opaque slot (a Gemini
// client's wrapped in base64, several separated by spaces). A slot value
// that is no envelope is kept as it is (a passthrough client's native
// value). Reasoning text, which people read, must hold no envelope.
func (o *clientOutcome) unwrapOpaque(slot, text string) {
	if slot != "" {
		value := slot
		if !mapping.IsEnvelope(value) {
			if b, err := base64.StdEncoding.DecodeString(value); err == nil && mapping.IsEnvelope(string(b)) {
				value = string(b)
			}
		}
		if !mapping.IsEnvelope(value) {
			o.signatures = append(o.signatures, slot)
			return
		}
		for _, tok := range strings.Split(value, " ") {
			c, err := mapping.ParseContinuation(tok)
			if err != nil {
				o.problemf("a malformed continuation envelope: %v", err)
				continue
			}
			o.signatures = append(o.signatures, c.Signature)
		}
		return
	}
	if strings.Contains(text, mapping.EnvelopePrefix) {
		o.problemf("reasoning text a person reads holds a continuation envelope: %.200q", text)
	}
}

// streamPart is a part of a client stream while it is open.
type streamPart struct {
	kind     codec.PartType
	id, name string
	text     strings.Builder
	// signature is a reasoning part's slot value, from its stop.
	signature string
}

// decodeClientStream reads a streamed answer of client protocol cp event by
// event, and checks that the canonical events its codec yields are well
// formed: a start first, parts numbered from 0 that open, take deltas and
// close one at a time, and one end or error last with nothing after it.
func decodeClientStream(o *clientOutcome, cp proto, body []byte) {
	if cp.isAWS() {
		var err error
		if body, err = unframeClientStream(body); err != nil {
			o.problemf("the body is not a valid event stream: %v", err)
		}
	}
	rd := sse.NewReader(bytes.NewReader(body), 0)
	dec, err := codec.NewStreamDecoder(codec.Protocol(cp))
	if err != nil {
		panic(err)
	}
	var (
		events  []codec.Event
		started bool
		ended   bool
		next    int
		open    *streamPart
		openIdx = -1
		closing bool
	)
	// closePart adds the open part to the outcome; a part still open when
	// the stream fails keeps what it received.
	closePart := func() {
		switch open.kind {
		case codec.PartText:
			o.text += open.text.String()
		case codec.PartRefusal:
			o.refusal += open.text.String()
		case codec.PartToolCall:
			o.addCall(open.id, open.name, open.text.String())
		case codec.PartReasoning:
			o.unwrapOpaque(open.signature, open.text.String())
		}
		open, openIdx = nil, -1
	}
	handle := func(ev *codec.Event) {
		if ended {
			o.problemf("event %s after the end of the stream", ev.Type)
			return
		}
		if !started && ev.Type != codec.EventStart && ev.Type != codec.EventError {
			o.problemf("the stream starts with %s, not start", ev.Type)
		}
		switch ev.Type {
		case codec.EventStart:
			if started {
				o.problemf("a second start event")
			}
		case codec.EventPartStart:
			if open != nil {
				o.problemf("part %d starts while part %d is open", ev.Index, openIdx)
			}
			if ev.Index != next {
				o.problemf("part %d starts where part %d was due", ev.Index, next)
			}
			next = ev.Index + 1
			open, openIdx = &streamPart{kind: ev.Part, id: strings.Clone(ev.ToolCallID), name: strings.Clone(ev.ToolName)}, ev.Index
		case codec.EventPartDelta:
			if open == nil || ev.Index != openIdx {
				o.problemf("a delta for part %d, which is not open", ev.Index)
				return
			}
			open.text.WriteString(ev.Text)
		case codec.EventPartStop:
			if open == nil || ev.Index != openIdx {
				o.problemf("part %d stops but is not open", ev.Index)
				return
			}
			open.signature = strings.Clone(ev.Signature)
			closePart()
		case codec.EventStop:
			o.stop = ev.StopReason
		case codec.EventEnd:
			if open != nil {
				o.problemf("the stream ends with part %d still open", openIdx)
				closePart()
			}
			ended, o.streamEnd = true, "end"
		case codec.EventError:
			if open != nil {
				closePart()
			}
			ended, o.streamEnd = true, "error"
			if closing {
				// The client's own decoder found the body cut short:
				// the stream did not end properly.
				o.streamEnd = ""
			}
			if ev.Err != nil {
				o.errMessage = ev.Err.Message
			}
		}
		started = true
	}
	for !ended {
		ev, err := rd.Next()
		if err != nil {
			var cause error
			if !errors.Is(err, io.EOF) {
				cause = err
				o.problemf("the event stream is malformed: %v", err)
			}
			events = dec.Close(events[:0], cause)
			closing = true
			for i := range events {
				handle(&events[i])
			}
			break
		}
		events = dec.Decode(events[:0], ev.Name, ev.Data, ev.Bare)
		for i := range events {
			handle(&events[i])
		}
	}
	// A client reads on to the end of the body: whatever follows the end
	// of the answer is noted (a Responses error event is followed by its
	// response.failed, which belongs to it; Chat's [DONE] may follow the
	// usage chunk).
	for ended {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		if ev.IsDone() || (o.streamEnd == "error" && cp.family() == openaiResponses && gjson.GetBytes(ev.Data, "type").Str == "response.failed") {
			continue
		}
		o.trailing = fmt.Sprintf("%.200q", ev.Data)
		break
	}
}
