package codec_test

import (
	"encoding/json"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
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
	methods := codec.ModelListOptions{Methods: []string{"generateContent", "streamGenerateContent"}}
	tests := []struct {
		name     string
		upstream codec.Protocol
		listing  string
		client   codec.Protocol
		want     string
	}{
		{"openai to anthropic", codec.OpenAIChat, openAIListing, codec.AnthropicMessages,
			`{"data":[{"type":"model","id":"gpt-5","display_name":"gpt-5","created_at":"2025-08-05T20:29:37Z"},` +
				`{"type":"model","id":"gpt-5-mini","display_name":"gpt-5-mini","created_at":"2025-08-05T20:31:07Z"}],` +
				`"has_more":false,"first_id":"gpt-5","last_id":"gpt-5-mini"}`},
		{"openai to gemini", codec.OpenAIResponses, openAIListing, codec.Gemini,
			`{"models":[{"name":"models/gpt-5","displayName":"gpt-5","supportedGenerationMethods":["generateContent","streamGenerateContent"]},` +
				`{"name":"models/gpt-5-mini","displayName":"gpt-5-mini","supportedGenerationMethods":["generateContent","streamGenerateContent"]}]}`},
		{"anthropic to openai", codec.AnthropicMessages, anthropicListing, codec.OpenAIChat,
			`{"object":"list","data":[{"id":"claude-sonnet-4-5","object":"model","created":1759104000,"owned_by":"anthropic"},` +
				`{"id":"claude-haiku-4-5","object":"model","created":1760486400,"owned_by":"anthropic"}]}`},
		{"anthropic to gemini", codec.AnthropicMessages, anthropicListing, codec.Gemini,
			`{"models":[{"name":"models/claude-sonnet-4-5","displayName":"Claude Sonnet 4.5","inputTokenLimit":200000,"outputTokenLimit":64000,` +
				`"supportedGenerationMethods":["generateContent","streamGenerateContent"]},` +
				`{"name":"models/claude-haiku-4-5","displayName":"Claude Haiku 4.5","supportedGenerationMethods":["generateContent","streamGenerateContent"]}]}`},
		{"gemini to openai", codec.Gemini, geminiListing, codec.OpenAIResponses,
			`{"object":"list","data":[{"id":"gemini-2.5-flash","object":"model","created":0,"owned_by":"google"},` +
				`{"id":"text-embedding-004","object":"model","created":0,"owned_by":"google"}]}`},
		{"gemini to anthropic", codec.Gemini, geminiListing, codec.AnthropicMessages,
			`{"data":[{"type":"model","id":"gemini-2.5-flash","display_name":"Gemini 2.5 Flash","created_at":"1970-01-01T00:00:00Z","max_input_tokens":1048576,"max_tokens":65536},` +
				`{"type":"model","id":"text-embedding-004","display_name":"Text Embedding 004","created_at":"1970-01-01T00:00:00Z"}],` +
				`"has_more":true,"first_id":"gemini-2.5-flash","last_id":"text-embedding-004"}`},
		{"gemini to gemini keeps the page token", codec.Gemini, geminiListing, codec.Gemini,
			`{"models":[{"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash","description":"Fast","inputTokenLimit":1048576,"outputTokenLimit":65536,` +
				`"supportedGenerationMethods":["generateContent","countTokens"]},` +
				`{"name":"models/text-embedding-004","displayName":"Text Embedding 004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"tok2"}`},
		{"empty anthropic", codec.AnthropicMessages, `{"data":[],"has_more":false,"first_id":null,"last_id":null}`, codec.AnthropicMessages,
			`{"data":[],"has_more":false,"first_id":null,"last_id":null}`},
		{"empty gemini page", codec.Gemini, `{}`, codec.OpenAIChat, `{"object":"list","data":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := codec.DecodeModelList(tc.upstream, []byte(tc.listing))
			if err != nil {
				t.Fatal(err)
			}
			got := codec.AppendModelList(nil, tc.client, l, methods)
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
		p    codec.Protocol
		body string
	}{
		{codec.OpenAIChat, `[]`},
		{codec.OpenAIChat, `{"object":"list"}`},
		{codec.OpenAIChat, `{"data":[{"object":"model"}]}`},
		{codec.AnthropicMessages, `{"data":{}}`},
		{codec.AnthropicMessages, `{"data":[{"id":7}]}`},
		{codec.Gemini, `{"models":{}}`},
		{codec.Gemini, `{"models":[{"displayName":"x"}]}`},
		{codec.Gemini, `not json`},
		{codec.Vertex, `{"models":[]}`},
	}
	for _, tc := range tests {
		_, err := codec.DecodeModelList(tc.p, []byte(tc.body))
		if err == nil {
			t.Errorf("%s %s: no error", tc.p, tc.body)
			continue
		}
		if e := err.(*codec.Error); tc.p != codec.Vertex && e.Status != 502 {
			t.Errorf("%s %s: status %d, want 502", tc.p, tc.body, e.Status)
		}
	}
}

func TestModelListShapes(t *testing.T) {
	tests := []struct {
		a, b codec.Protocol
		same bool
	}{
		{codec.OpenAIChat, codec.OpenAIResponses, true},
		{codec.OpenAIChat, codec.AnthropicMessages, false},
		{codec.Gemini, codec.Gemini, true},
		{codec.Gemini, codec.Vertex, false},
		{codec.Vertex, codec.Vertex, false},
		{codec.VertexAnthropic, codec.AnthropicMessages, false},
	}
	for _, tc := range tests {
		if got := codec.SameModelListShape(tc.a, tc.b); got != tc.same {
			t.Errorf("SameModelListShape(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
