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
	// AzureOpenAI is Azure OpenAI: OpenAI Chat Completions on Azure's
	// paths (/openai/v1/chat/completions, or a deployment's path with an
	// API version), with the api-key header or an Entra ID token. An
	// upstream of this protocol also serves Responses clients in their own
	// format (AzureOpenAIResponses).
	AzureOpenAI Protocol = "azure-openai"
	// AzureOpenAIResponses is the Responses API of Azure OpenAI
	// (/openai/v1/responses).
	AzureOpenAIResponses Protocol = "azure-openai-responses"
	// Bedrock is the Converse API of Amazon Bedrock Runtime
	// (POST /model/{modelId}/converse and …/converse-stream): one wire
	// format for every model on Bedrock, streamed as an AWS event stream.
	Bedrock Protocol = "bedrock"
	// BedrockAnthropic is Anthropic Messages on Amazon Bedrock Runtime
	// (POST /model/{modelId}/invoke and …/invoke-with-response-stream):
	// no model in the body, an anthropic_version field, anthropic_beta in
	// the body, and streams of Messages events wrapped in AWS event
	// stream chunks.
	BedrockAnthropic Protocol = "bedrock-anthropic"
)

// Protocols returns every protocol in a stable order, in a slice of its own.
func Protocols() []Protocol {
	ps := make([]Protocol, len(registered))
	for i, d := range registered {
		ps[i] = d.Name
	}
	return ps
}

// ClientProtocols returns the protocols a client's request is recognised
// as (those with a Route), in the order of Protocols. The others are
// upstreams only: a client of Azure OpenAI speaks openai-chat or
// openai-responses on Azure's paths.
func ClientProtocols() []Protocol {
	var ps []Protocol
	for _, d := range registered {
		if r := &d.Route; len(r.Suffixes) > 0 || len(r.Paths) > 0 || r.Models != "" {
			ps = append(ps, d.Name)
		}
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
