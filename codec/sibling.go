package codec

// AdaptSibling returns body, a request body of protocol from, adapted to
// d's protocol when the two are siblings (one wire family): Anthropic on
// Vertex and Bedrock carries anthropic_version instead of model (model is
// the model the body goes to), Bedrock streams by its path (stream is
// whether the client asked for a stream), and Vertex rejects the call ids
// of Gemini API bodies. Every other byte is kept; a body of d's own
// protocol, or of a sibling whose bodies need no edit, is returned as it
// is.
func (d *Descriptor) AdaptSibling(body []byte, from Protocol, model string, stream bool) ([]byte, error) {
	if d.sibling == nil || from == d.Name {
		return body, nil
	}
	return d.sibling.AdaptSibling(d.Name, body, from, model, stream)
}

// FitBody rewrites body, a request of protocol p that passes through
// untranslated, to carry what fitting its decoded form req to a model
// changed: the fields params name, from req (BodyFitter). A protocol whose
// codec cannot edit its bodies gets body back unchanged.
func FitBody(p Protocol, body []byte, req *Request, params []string, target Target) ([]byte, error) {
	d := p.Descriptor()
	if d == nil || d.fitter == nil {
		return body, nil
	}
	return d.fitter.FitBody(p, body, req, params, target)
}
