package codec

import (
	"fmt"
	"strings"
)

// Protocol names a wire protocol. These exact names are used in
// configuration, errors, logs and metrics.
type Protocol string

// The protocols llmbridge speaks.
const (
	// OpenAIChat is OpenAI Chat Completions (POST /v1/chat/completions).
	OpenAIChat Protocol = "openai-chat"
	// OpenAIResponses is the OpenAI Responses API (POST /v1/responses).
	OpenAIResponses Protocol = "openai-responses"
	// AnthropicMessages is the Anthropic Messages API (POST /v1/messages).
	AnthropicMessages Protocol = "anthropic-messages"
	// Gemini is the Gemini API generateContent family.
	Gemini Protocol = "gemini"
	// Vertex is Gemini on Vertex AI: the Gemini wire format on Vertex paths.
	Vertex Protocol = "vertex"
	// VertexAnthropic is Anthropic Messages on Vertex AI: no model in the
	// body, an anthropic_version field, and the model in the path.
	VertexAnthropic Protocol = "vertex-anthropic"
)

// Protocols returns every protocol in a stable order, in a slice of its own.
func Protocols() []Protocol {
	ps := make([]Protocol, len(registered))
	for i, d := range registered {
		ps[i] = d.Name
	}
	return ps
}

// ParseProtocol returns the protocol called name, or an error listing the
// valid names.
func ParseProtocol(name string) (Protocol, error) {
	for _, p := range Protocols() {
		if string(p) == name {
			return p, nil
		}
	}
	names := make([]string, 0, len(registered))
	for _, p := range Protocols() {
		names = append(names, string(p))
	}
	return "", fmt.Errorf("unknown protocol %q (want one of %s)", name, strings.Join(names, ", "))
}

// Family returns the wire format p shares with its siblings: Vertex speaks
// Gemini's format and VertexAnthropic speaks Anthropic's. Two protocols of
// one family translate by passthrough with small body edits.
func (p Protocol) Family() Protocol {
	if d := p.Descriptor(); d != nil {
		return d.Family
	}
	return p
}

// ModelInPath reports whether p carries the model in the URL path rather than
// in the request body.
func (p Protocol) ModelInPath() bool {
	d := p.Descriptor()
	return d != nil && d.ModelInPath
}
