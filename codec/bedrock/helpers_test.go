package bedrock

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// text returns a message of one text part.
func text(role codec.Role, s string) codec.Message {
	return codec.Message{Role: role, Parts: []codec.Part{{Type: codec.PartText, Text: s}}}
}

// decode decodes body as a Converse request into a fresh Request.
func decode(t *testing.T, body string) (codec.Request, *codec.Error) {
	t.Helper()
	var req codec.Request
	err := codec.DecodeRequest(codec.Bedrock, []byte(body), &req)
	if err == nil {
		return req, nil
	}
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return req, e
}

// encode encodes req as a Converse request for model.
func encode(t *testing.T, req *codec.Request, model string) (string, *codec.Error) {
	t.Helper()
	out, err := codec.AppendRequest(nil, codec.Bedrock, req, codec.EncodeOptions{Model: model})
	if err == nil {
		return string(out), nil
	}
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return "", e
}

// userHi is the smallest conversation.
const userHi = `"messages":[{"role":"user","content":[{"text":"Hi"}]}]`
