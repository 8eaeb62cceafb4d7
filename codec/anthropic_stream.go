package codec

// anthropicStreamDecoder decodes upstream Anthropic streams.
type anthropicStreamDecoder struct{ done bool }

func newAnthropicStreamDecoder(p Protocol) *anthropicStreamDecoder { return &anthropicStreamDecoder{} }

// Decode implements StreamDecoder.
func (d *anthropicStreamDecoder) Decode(out []Event, name, data []byte, bare bool) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// Close implements StreamDecoder.
func (d *anthropicStreamDecoder) Close(out []Event, cause error) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// anthropicStreamEncoder encodes Anthropic streams for clients.
type anthropicStreamEncoder struct{ req *Request }

func newAnthropicStreamEncoder(req *Request) *anthropicStreamEncoder {
	return &anthropicStreamEncoder{req: req}
}

// Encode implements StreamEncoder.
func (e *anthropicStreamEncoder) Encode(dst []byte, ev *Event) []byte { return dst }
