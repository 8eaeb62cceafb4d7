package caddytest

import (
	"fmt"
	"net/url"
	"strings"
)

// proto names a wire protocol exactly as llmbridge's configuration does.
// The suite keeps its own copy of the names so that it tests the module from
// the outside, as a user's Caddyfile would.
type proto string

const (
	openaiChat      proto = "openai-chat"
	openaiResponses proto = "openai-responses"
	anthropicMsgs   proto = "anthropic-messages"
	gemini          proto = "gemini"
	vertex          proto = "vertex"
	vertexAnthropic proto = "vertex-anthropic"
	// bedrockConverse is Amazon Bedrock's Converse API, one wire format
	// for every model on Bedrock, streamed as an AWS event stream (the
	// name bedrock would clash with the codec package's).
	bedrockConverse proto = "bedrock"
	// bedrockAnthropic is Anthropic Messages on Amazon Bedrock
	// (InvokeModel), in front of which the mock checks SigV4 signatures
	// or a Bedrock API key.
	bedrockAnthropic proto = "bedrock-anthropic"
	// azureOpenAI is an upstream only: Azure OpenAI, in front of the
	// OpenAI mocks (azure_test.go).
	azureOpenAI proto = "azure-openai"
	// geminiInteractions is Google's Interactions API on the Gemini API
	// (POST /v1beta/interactions, the stream chosen by the body).
	geminiInteractions proto = "gemini-interactions"
	// vertexInteractions is the Interactions API on Vertex AI
	// (POST projects/*/locations/*/interactions, the stream chosen by the
	// body, where the SDKs post), with a bearer token.
	vertexInteractions proto = "vertex-interactions"
)

// allProtocols lists the protocols in a stable order; it is both the client
// and the upstream axis of the pair matrix.
var allProtocols = []proto{openaiChat, openaiResponses, anthropicMsgs, gemini, vertex, vertexAnthropic, bedrockConverse, bedrockAnthropic,
	geminiInteractions, vertexInteractions}

// Settings written into the Caddyfile and expected by the mocks.
const (
	vertexProject  = "test-project"
	vertexLocation = "us-east5"
	// clientProject is the project the Vertex clients put in their paths;
	// llmbridge must replace it with vertexProject.
	clientProject = "client-project"
	clientKey     = "client-key"
	upstreamKey   = "upstream-key"
	// vertexAnthropicVersion is the body version Anthropic on Vertex requires.
	vertexAnthropicVersion = "vertex-2023-10-16"
	// bedrockAnthropicVersion is the body version Anthropic on Bedrock
	// requires.
	bedrockAnthropicVersion = "bedrock-2023-05-31"
	// awsRegion is the aws_region of the Bedrock sites; the mocks check
	// that requests are signed for it.
	awsRegion = "us-east-1"
)

// isAnthropic reports whether p speaks the Anthropic Messages wire format.
func (p proto) isAnthropic() bool {
	return p == anthropicMsgs || p == vertexAnthropic || p == bedrockAnthropic
}

// reads529 reports whether p's clients get Anthropic's 529 "overloaded"
// as it is; the others get 503, which their SDKs retry (AWS's
// ServiceUnavailableException for Bedrock's).
func (p proto) reads529() bool { return p == anthropicMsgs || p == vertexAnthropic }

// isAWS reports whether p is a protocol of Amazon Bedrock: SigV4 or a
// Bedrock API key, AWS errors and event streams.
func (p proto) isAWS() bool { return p == bedrockAnthropic || p == bedrockConverse }

// answersNameModel reports whether p's answers name a model; Converse's
// name none.
func (p proto) answersNameModel() bool { return p != bedrockConverse }

// blockContent reports whether p's message content is always an array of
// blocks named by their one member ({"text": ...}): Gemini's parts and
// Converse's content blocks.
func (p proto) blockContent() bool { return p.isGoogle() || p == bedrockConverse }

// isGoogle reports whether p speaks the Gemini wire format.
func (p proto) isGoogle() bool { return p == gemini || p == vertex }

// isInteractions reports whether p speaks Google's Interactions API:
// typed steps in, an interaction of steps out.
func (p proto) isInteractions() bool { return p == geminiInteractions || p == vertexInteractions }

// recognised is the client protocol llmbridge names a client of p by in
// its logs and spans: one route serves the Interactions clients of the
// Gemini API and of Vertex AI, as gemini-interactions.
func (p proto) recognised() proto {
	if p == vertexInteractions {
		return geminiInteractions
	}
	return p
}

// isOpenAI reports whether p is one of the OpenAI protocols.
func (p proto) isOpenAI() bool { return p == openaiChat || p == openaiResponses }

// family returns the wire format p shares with its siblings.
func (p proto) family() proto {
	switch p {
	case vertex:
		return gemini
	case vertexAnthropic, bedrockAnthropic:
		return anthropicMsgs
	case azureOpenAI:
		return openaiChat
	case vertexInteractions:
		return geminiInteractions
	}
	return p
}

// modelInPath reports whether p carries the model in the URL path.
func (p proto) modelInPath() bool {
	return p == gemini || p == vertex || p == vertexAnthropic || p.isAWS()
}

// credentialScheme names how p authenticates: "bearer", "x-api-key" or
// "x-goog-api-key". Bedrock clients send a Bedrock API key as a bearer
// token; its upstreams get one or a SigV4 signature.
func (p proto) credentialScheme() string {
	switch p {
	case anthropicMsgs:
		return "x-api-key"
	case gemini, geminiInteractions:
		return "x-goog-api-key"
	}
	return "bearer"
}

// defaultModel is the model each client asks for.
func (p proto) defaultModel() string {
	switch p {
	case openaiChat, openaiResponses:
		// A reasoning model that takes every effort the clients send but
		// minimal: the model rules fit requests to it.
		return "gpt-5.2"
	case anthropicMsgs:
		// Claude Sonnet 4 takes temperature and top_p together, which the
		// suites' clients send; later models take one of them.
		return "claude-sonnet-4-20250514"
	case vertexAnthropic:
		return "claude-sonnet-4@20250514"
	case bedrockAnthropic, bedrockConverse:
		// A Claude id: Converse writes Claude's own settings (thinking,
		// top_k) for it, and its answers carry signed reasoning.
		return "anthropic.claude-sonnet-4-20250514-v1:0"
	}
	return "gemini-2.5-flash"
}

// clientPath is the path a client of protocol p posts a non-streaming
// generation request to (the design note's client-side table).
func (p proto) clientPath(model string) string {
	switch p {
	case openaiChat:
		return "/v1/chat/completions"
	case openaiResponses:
		return "/v1/responses"
	case anthropicMsgs:
		return "/v1/messages"
	case gemini:
		return "/v1beta/models/" + model + ":generateContent"
	case vertex:
		return "/v1/projects/" + clientProject + "/locations/" + vertexLocation + "/publishers/google/models/" + model + ":generateContent"
	case vertexAnthropic:
		return "/v1/projects/" + clientProject + "/locations/" + vertexLocation + "/publishers/anthropic/models/" + url.PathEscape(model) + ":rawPredict"
	case bedrockAnthropic:
		return "/model/" + awsEscape(model) + "/invoke"
	case bedrockConverse:
		return "/model/" + awsEscape(model) + "/converse"
	case geminiInteractions:
		// The REST reference's version; the SDKs' v1 is routed the same.
		return "/v1beta/interactions"
	case vertexInteractions:
		return "/v1beta1/projects/" + clientProject + "/locations/" + vertexLocation + "/interactions"
	}
	panic("unknown protocol " + string(p))
}

// upstreamPath is the exact path an upstream of protocol p must receive for
// model (the design note's upstream-side table, with the configured
// project and location).
func (p proto) upstreamPath(model string) string {
	switch p {
	case vertex:
		return "/v1/projects/" + vertexProject + "/locations/" + vertexLocation + "/publishers/google/models/" + model + ":generateContent"
	case vertexAnthropic:
		return "/v1/projects/" + vertexProject + "/locations/" + vertexLocation + "/publishers/anthropic/models/" + model + ":rawPredict"
	case vertexInteractions:
		return "/v1beta1/projects/" + vertexProject + "/locations/" + vertexLocation + "/interactions"
	}
	return p.clientPath(model)
}

// streamMethod is the streaming variant of p's path method, for protocols
// that say "stream" in the path rather than in the body.
func (p proto) streamMethod() (method, streaming string, ok bool) {
	switch p {
	case gemini, vertex:
		return ":generateContent", ":streamGenerateContent", true
	case vertexAnthropic:
		return ":rawPredict", ":streamRawPredict", true
	case bedrockAnthropic:
		return "/invoke", "/invoke-with-response-stream", true
	case bedrockConverse:
		return "/converse", "/converse-stream", true
	}
	return "", "", false
}

// upstreamStreamPath is the exact path an upstream of protocol p must
// receive for a streamed request for model: the streaming method for the
// protocols that name it in the path, the same endpoint for the others.
func (p proto) upstreamStreamPath(model string) string {
	path := p.upstreamPath(model)
	if method, streaming, ok := p.streamMethod(); ok {
		return strings.TrimSuffix(path, method) + streaming
	}
	return path
}

// isStreamPath reports whether path uses p's streaming method
// (:streamGenerateContent, :streamRawPredict).
func (p proto) isStreamPath(path string) bool {
	_, streaming, ok := p.streamMethod()
	return ok && strings.HasSuffix(path, streaming)
}

// upstreamPathModel checks path against p's upstream endpoint, streaming or
// not, and returns the model it names (empty for protocols with the model
// in the body).
func (p proto) upstreamPathModel(path string) (model string, ok bool) {
	var prefix, suffix string
	switch p {
	case openaiChat, openaiResponses, anthropicMsgs, geminiInteractions:
		return "", path == p.upstreamPath("")
	case vertexInteractions:
		// The SDKs escape the slashes of their API version, which
		// Google's front end decodes.
		if unescaped, err := url.PathUnescape(path); err == nil {
			path = unescaped
		}
		return "", path == p.upstreamPath("")
	case gemini:
		prefix, suffix = "/v1beta/models/", ":generateContent"
	case vertex:
		prefix, suffix = "/v1/projects/"+vertexProject+"/locations/"+vertexLocation+"/publishers/google/models/", ":generateContent"
	case vertexAnthropic:
		prefix, suffix = "/v1/projects/"+vertexProject+"/locations/"+vertexLocation+"/publishers/anthropic/models/", ":rawPredict"
	case bedrockAnthropic:
		prefix, suffix = "/model/", "/invoke"
	case bedrockConverse:
		prefix, suffix = "/model/", "/converse"
	}
	if method, streaming, _ := p.streamMethod(); p.isStreamPath(path) {
		suffix = strings.TrimSuffix(suffix, method) + streaming
	}
	if !strings.HasPrefix(path, prefix) || !strings.HasSuffix(path, suffix) || len(path) <= len(prefix)+len(suffix) {
		return "", false
	}
	model = path[len(prefix) : len(path)-len(suffix)]
	if p.isAWS() {
		// The AWS SDKs escape a model id's ':' as %3A; Anthropic's
		// Bedrock client sends it as it is. Both reach the model.
		if model, err := url.PathUnescape(model); err == nil && model != "" && !strings.Contains(model, "/") {
			return model, true
		}
		return "", false
	}
	if strings.ContainsAny(model, "/:") {
		return "", false
	}
	return model, true
}

// awsEscape escapes a path segment as the AWS SDKs do: every byte but the
// unreserved ones.
func awsEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
