// Package codec holds llmbridge's canonical conversation model and one codec
// per wire protocol. A codec decodes and encodes requests, non-streaming
// responses and error bodies of its protocol; it knows nothing of HTTP
// servers or Caddy and is usable as a plain library:
//
//	var req codec.Request
//	err := codec.DecodeRequest(codec.OpenAIResponses, body, &req)
//	out, err := codec.AppendRequest(nil, codec.AnthropicMessages, &req, codec.EncodeOptions{Model: "demo-model"})
//
// Decoders read JSON with gjson and never build map[string]any; encoders
// append JSON to a caller-supplied buffer. Strings in a decoded value may
// alias the input body, so the body must not be modified while the decoded
// value is in use.
//
// Nothing is dropped silently. A decoder maps every field it knows; a field
// that only steers the provider (a hint, such as store or cache_control) and
// has no canonical slot is recorded in Request.Dropped; any other field, and
// anything the target protocol cannot express, is an *Error with status 400
// naming the field.
package codec
