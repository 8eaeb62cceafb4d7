package codec

// AdaptSibling returns body, a request body of protocol from, adapted to
// d's protocol when the two are siblings (one wire family): Anthropic on
// Vertex carries anthropic_version instead of model (model is the model
// the body goes to), and Vertex rejects the call ids of Gemini API
// bodies. Every other byte is kept; a body of d's own protocol, or of a
// sibling whose bodies need no edit, is returned as it is.
func (d *Descriptor) AdaptSibling(body []byte, from Protocol, model string) ([]byte, error) {
	if d.sibling == nil || from == d.Name {
		return body, nil
	}
	return d.sibling.AdaptSibling(d.Name, body, from, model)
}
