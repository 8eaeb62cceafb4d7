package codec

// chatStreamDecoder decodes upstream Chat streams.
type chatStreamDecoder struct{ done bool }

func newChatStreamDecoder() *chatStreamDecoder { return &chatStreamDecoder{} }

// Decode implements StreamDecoder.
func (d *chatStreamDecoder) Decode(out []Event, name, data []byte, bare bool) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// Close implements StreamDecoder.
func (d *chatStreamDecoder) Close(out []Event, cause error) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// chatStreamEncoder encodes Chat streams for clients.
type chatStreamEncoder struct{ req *Request }

func newChatStreamEncoder(req *Request) *chatStreamEncoder { return &chatStreamEncoder{req: req} }

// Encode implements StreamEncoder.
func (e *chatStreamEncoder) Encode(dst []byte, ev *Event) []byte { return dst }
