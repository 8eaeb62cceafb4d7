package anthropic

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// protocolFor returns the protocol a test case speaks.
func protocolFor(vertex bool) codec.Protocol {
	if vertex {
		return codec.VertexAnthropic
	}
	return codec.AnthropicMessages
}

// text returns a user or assistant message of text parts.
func text(role codec.Role, texts ...string) codec.Message {
	m := codec.Message{Role: role, Parts: make([]codec.Part, len(texts))}
	for i, t := range texts {
		m.Parts[i] = codec.Part{Type: codec.PartText, Text: t}
	}
	return m
}

// asError returns err as an *Error, failing the test otherwise.
func asError(t *testing.T, err error) *codec.Error {
	t.Helper()
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}
