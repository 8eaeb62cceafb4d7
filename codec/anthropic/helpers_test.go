package anthropic

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// anthropicProtocolFor returns the protocol a test case speaks.
func anthropicProtocolFor(vertex bool) codec.Protocol {
	if vertex {
		return codec.VertexAnthropic
	}
	return codec.AnthropicMessages
}

// anthropicText returns a user or assistant message of text parts.
func anthropicText(role codec.Role, texts ...string) codec.Message {
	m := codec.Message{Role: role, Parts: make([]codec.Part, len(texts))}
	for i, t := range texts {
		m.Parts[i] = codec.Part{Type: codec.PartText, Text: t}
	}
	return m
}

// anthropicAsError returns err as an *Error, failing the test otherwise.
func anthropicAsError(t *testing.T, err error) *codec.Error {
	t.Helper()
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}
