package codec

// responsesStreamDecoder decodes upstream Responses streams.
type responsesStreamDecoder struct{ done bool }

func newResponsesStreamDecoder() *responsesStreamDecoder { return &responsesStreamDecoder{} }

// Decode implements StreamDecoder.
func (d *responsesStreamDecoder) Decode(out []Event, name, data []byte, bare bool) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// Close implements StreamDecoder.
func (d *responsesStreamDecoder) Close(out []Event, cause error) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// responsesStreamEncoder encodes Responses streams for clients.
type responsesStreamEncoder struct{ req *Request }

func newResponsesStreamEncoder(req *Request) *responsesStreamEncoder {
	return &responsesStreamEncoder{req: req}
}

// Encode implements StreamEncoder.
func (e *responsesStreamEncoder) Encode(dst []byte, ev *Event) []byte { return dst }
