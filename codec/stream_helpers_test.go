package codec

// streamDecoder is NewStreamDecoder for the tests' known protocols.
func streamDecoder(p Protocol) StreamDecoder {
	d, err := NewStreamDecoder(p)
	if err != nil {
		panic(err)
	}
	return d
}

// streamEncoder is NewStreamEncoder for the tests' known protocols.
func streamEncoder(p Protocol, req *Request) StreamEncoder {
	e, err := NewStreamEncoder(p, req)
	if err != nil {
		panic(err)
	}
	return e
}
