package codec

import (
	"errors"
	"testing"
)

// Helpers shared by the Anthropic Messages tests.

// recordingsDir is the recordings directory, relative to the package.

// anthropicProtocolFor returns the protocol a test case speaks.
func anthropicProtocolFor(vertex bool) Protocol {
	if vertex {
		return VertexAnthropic
	}
	return AnthropicMessages
}

// anthropicText returns a user or assistant message of text parts.
func anthropicText(role Role, texts ...string) Message {
	m := Message{Role: role, Parts: make([]Part, len(texts))}
	for i, t := range texts {
		m.Parts[i] = Part{Type: PartText, Text: t}
	}
	return m
}

// anthropicAsError returns err as an *Error, failing the test otherwise.
func anthropicAsError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}
