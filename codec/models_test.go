package codec

import (
	"encoding/json"
	"testing"
)

// Upstream listings as the providers send them (trimmed to two models).
const (
	openAIListing = `{"object":"list","data":[{"id":"gpt-5","object":"model","created":1754425777,"owned_by":"system"},` +
		`{"id":"gpt-5-mini","object":"model","created":1754425867,"owned_by":"system"}]}`
	anthropicListing = `{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5",` +
		`"created_at":"2025-09-29T00:00:00Z","max_input_tokens":200000,"max_tokens":64000},` +
		`{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5","created_at":"2025-10-15T00:00:00Z"}],` +
		`"has_more":true,"first_id":"claude-sonnet-4-5","last_id":"claude-haiku-4-5"}`
	geminiListing = `{"models":[{"name":"models/gemini-2.5-flash","version":"001","displayName":"Gemini 2.5 Flash",` +
		`"description":"Fast","inputTokenLimit":1048576,"outputTokenLimit":65536,` +
		`"supportedGenerationMethods":["generateContent","countTokens"]},` +
		`{"name":"models/text-embedding-004","displayName":"Text Embedding 004","supportedGenerationMethods":["embedContent"]}],` +
		`"nextPageToken":"tok2"}`
)

func TestModelListTranslation(t *testing.T) {
	methods := ModelListOptions{Methods: []string{"generateContent", "streamGenerateContent"}}
	tests := []struct {
		name     string
		upstream Protocol
		listing  string
		client   Protocol
		want     string
	}{
		{"openai to anthropic", OpenAIChat, openAIListing, AnthropicMessages,
			`{"data":[{"type":"model","id":"gpt-5","display_name":"gpt-5","created_at":"2025-08-05T20:29:37Z"},` +
				`{"type":"model","id":"gpt-5-mini","display_name":"gpt-5-mini","created_at":"2025-08-05T20:31:07Z"}],` +
				`"has_more":false,"first_id":"gpt-5","last_id":"gpt-5-mini"}`},
		{"openai to gemini", OpenAIResponses, openAIListing, Gemini,
			`{"models":[{"name":"models/gpt-5","displayName":"gpt-5","supportedGenerationMethods":["generateContent","streamGenerateContent"]},` +
				`{"name":"models/gpt-5-mini","displayName":"gpt-5-mini","supportedGenerationMethods":["generateContent","streamGenerateContent"]}]}`},
		{"anthropic to openai", AnthropicMessages, anthropicListing, OpenAIChat,
			`{"object":"list","data":[{"id":"claude-sonnet-4-5","object":"model","created":1759104000,"owned_by":"anthropic"},` +
				`{"id":"claude-haiku-4-5","object":"model","created":1760486400,"owned_by":"anthropic"}]}`},
		{"anthropic to gemini", AnthropicMessages, anthropicListing, Gemini,
			`{"models":[{"name":"models/claude-sonnet-4-5","displayName":"Claude Sonnet 4.5","inputTokenLimit":200000,"outputTokenLimit":64000,` +
				`"supportedGenerationMethods":["generateContent","streamGenerateContent"]},` +
				`{"name":"models/claude-haiku-4-5","displayName":"Claude Haiku 4.5","supportedGenerationMethods":["generateContent","streamGenerateContent"]}]}`},
		{"gemini to openai", Gemini, geminiListing, OpenAIResponses,
			`{"object":"list","data":[{"id":"gemini-2.5-flash","object":"model","created":0,"owned_by":"google"},` +
				`{"id":"text-embedding-004","object":"model","created":0,"owned_by":"google"}]}`},
		{"gemini to anthropic", Gemini, geminiListing, AnthropicMessages,
			`{"data":[{"type":"model","id":"gemini-2.5-flash","display_name":"Gemini 2.5 Flash","created_at":"1970-01-01T00:00:00Z","max_input_tokens":1048576,"max_tokens":65536},` +
				`{"type":"model","id":"text-embedding-004","display_name":"Text Embedding 004","created_at":"1970-01-01T00:00:00Z"}],` +
				`"has_more":true,"first_id":"gemini-2.5-flash","last_id":"text-embedding-004"}`},
		{"gemini to gemini keeps the page token", Gemini, geminiListing, Gemini,
			`{"models":[{"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash","description":"Fast","inputTokenLimit":1048576,"outputTokenLimit":65536,` +
				`"supportedGenerationMethods":["generateContent","countTokens"]},` +
				`{"name":"models/text-embedding-004","displayName":"Text Embedding 004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"tok2"}`},
		{"empty anthropic", AnthropicMessages, `{"data":[],"has_more":false,"first_id":null,"last_id":null}`, AnthropicMessages,
			`{"data":[],"has_more":false,"first_id":null,"last_id":null}`},
		{"empty gemini page", Gemini, `{}`, OpenAIChat, `{"object":"list","data":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := DecodeModelList(tc.upstream, []byte(tc.listing))
			if err != nil {
				t.Fatal(err)
			}
			got := AppendModelList(nil, tc.client, l, methods)
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestModelListInvalid(t *testing.T) {
	tests := []struct {
		p    Protocol
		body string
	}{
		{OpenAIChat, `[]`},
		{OpenAIChat, `{"object":"list"}`},
		{OpenAIChat, `{"data":[{"object":"model"}]}`},
		{AnthropicMessages, `{"data":{}}`},
		{AnthropicMessages, `{"data":[{"id":7}]}`},
		{Gemini, `{"models":{}}`},
		{Gemini, `{"models":[{"displayName":"x"}]}`},
		{Gemini, `not json`},
		{Vertex, `{"models":[]}`},
	}
	for _, tc := range tests {
		_, err := DecodeModelList(tc.p, []byte(tc.body))
		if err == nil {
			t.Errorf("%s %s: no error", tc.p, tc.body)
			continue
		}
		if e := err.(*Error); tc.p != Vertex && e.Status != 502 {
			t.Errorf("%s %s: status %d, want 502", tc.p, tc.body, e.Status)
		}
	}
}

func TestModelListShapes(t *testing.T) {
	tests := []struct {
		a, b Protocol
		same bool
	}{
		{OpenAIChat, OpenAIResponses, true},
		{OpenAIChat, AnthropicMessages, false},
		{Gemini, Gemini, true},
		{Gemini, Vertex, false},
		{Vertex, Vertex, false},
		{VertexAnthropic, AnthropicMessages, false},
	}
	for _, tc := range tests {
		if got := SameModelListShape(tc.a, tc.b); got != tc.same {
			t.Errorf("SameModelListShape(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
