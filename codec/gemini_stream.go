package codec

// geminiStreamDecoder decodes upstream Gemini streams.
type geminiStreamDecoder struct{ done bool }

func newGeminiStreamDecoder(p Protocol) *geminiStreamDecoder { return &geminiStreamDecoder{} }

// Decode implements StreamDecoder.
func (d *geminiStreamDecoder) Decode(out []Event, name, data []byte, bare bool) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// Close implements StreamDecoder.
func (d *geminiStreamDecoder) Close(out []Event, cause error) []Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, Event{Type: EventError, Err: invalid("", "not implemented")})
}

// geminiStreamEncoder encodes Gemini streams for clients.
type geminiStreamEncoder struct{ req *Request }

func newGeminiStreamEncoder(req *Request) *geminiStreamEncoder { return &geminiStreamEncoder{req: req} }

// Encode implements StreamEncoder.
func (e *geminiStreamEncoder) Encode(dst []byte, ev *Event) []byte { return dst }
