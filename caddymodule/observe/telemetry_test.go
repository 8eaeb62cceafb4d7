package observe

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestContentShapes checks the conventions' message shapes the content
// capture writes: tool results as messages of role tool (split from the
// user's text beside them), media as blob parts with their modality and
// base64 content, or uri parts, and a blob whose data does not fit the
// bound recorded without content and marked truncated.
func TestContentShapes(t *testing.T) {
	req := &codec.Request{Messages: []codec.Message{
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "look"},
			{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			{Type: codec.PartImage, MediaType: "image/jpeg", URL: "https://example.com/a.jpg"},
			{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0="}}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "c1", ToolName: "ls", Arguments: `{"d":"."}`}}},
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c1", Content: []codec.Part{{Type: codec.PartText, Text: "a.go"}}},
			{Type: codec.PartText, Text: "and now?"}}},
	}}
	c := &contentCapture{limit: 1 << 10}
	c.request(req)
	a := c.attributes(nil, "stop")
	var input string
	for _, kv := range a {
		if kv.Key == "gen_ai.input.messages" {
			input = kv.Value.AsString()
		}
	}
	want := `[{"role":"user","parts":[{"type":"text","content":"look"},` +
		`{"type":"blob","content":"iVBORw0KGgo=","modality":"image","mime_type":"image/png"},` +
		`{"type":"uri","modality":"image","mime_type":"image/jpeg","uri":"https://example.com/a.jpg"},` +
		`{"type":"blob","content":"JVBERi0=","modality":"application","mime_type":"application/pdf"}]},` +
		`{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"ls","arguments":{"d":"."}}]},` +
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"a.go"}]},` +
		`{"role":"user","parts":[{"type":"text","content":"and now?"}]}]`
	if input != want {
		t.Errorf("input messages\n got %s\nwant %s", input, want)
	}

	small := &contentCapture{limit: 40}
	small.request(&codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{
		{Type: codec.PartImage, MediaType: "image/png", Data: strings.Repeat("A", 64)}}}}})
	if got := small.input[0].Parts[0]; got.Type != "blob" || got.Content != "" || got.Modality != "image" || !small.truncated {
		t.Errorf("an image over the bound: %+v truncated %v, want a blob without content, marked truncated", got, small.truncated)
	}
}

// TestNoteEditsListsRuleOnce lists a rule that changed two fields once.
func TestNoteEditsListsRuleOnce(t *testing.T) {
	tel := &Telemetry{}
	tel.NoteEdits([]rules.Adjustment{{Rule: "openai.sampling.fixed", Param: "temperature"}, {Rule: "openai.sampling.fixed", Param: "top_p"},
		{Rule: "openai.max_tokens.model-cap", Param: "max_completion_tokens"}}, nil)
	if want := []string{"openai.sampling.fixed", "openai.max_tokens.model-cap"}; !slices.Equal(tel.adjusted, want) {
		t.Errorf("adjustments %v, want %v", tel.adjusted, want)
	}
}

// TestFirstChunkBuckets holds the time-to-first-chunk histogram to the
// conventions' advice: 0.01 to 81.92 s, as the operation's duration.
func TestFirstChunkBuckets(t *testing.T) {
	if b := firstChunkBuckets; b[0] != 0.01 || b[len(b)-1] != 81.92 {
		t.Errorf("time to first chunk buckets %v, want 0.01 ... 81.92", b)
	}
}

// TestProviderName maps every upstream protocol, and the dialects of the
// OpenAI-compatible ones, to gen_ai.provider.name.
func TestProviderName(t *testing.T) {
	for _, c := range []struct {
		p       codec.Protocol
		dialect string
		want    string
	}{
		{codec.OpenAIChat, "", "openai"},
		{codec.OpenAIResponses, "openai", "openai"},
		{codec.OpenAIChat, "deepseek", "deepseek"},
		{codec.OpenAIChat, "mistral", "mistral_ai"},
		{codec.OpenAIChat, "groq", "groq"},
		{codec.OpenAIChat, "xai", "x_ai"},
		{codec.OpenAIChat, "ollama", "ollama"},
		{codec.AnthropicMessages, "", "anthropic"},
		{codec.Gemini, "", "gcp.gemini"},
		{codec.Vertex, "", "gcp.vertex_ai"},
		{codec.VertexAnthropic, "", "gcp.vertex_ai"},
		{codec.Bedrock, "", "aws.bedrock"},
		{codec.BedrockAnthropic, "", "aws.bedrock"},
		{codec.AzureOpenAI, "", "azure.ai.openai"},
		{codec.AzureOpenAIResponses, "", "azure.ai.openai"},
		{interactions.Gemini, "", "gcp.gemini"},
		{interactions.Vertex, "", "gcp.vertex_ai"},
	} {
		if got := ProviderName(c.p, c.dialect); got != c.want {
			t.Errorf("providerName(%s, %q) = %q, want %q", c.p, c.dialect, got, c.want)
		}
	}
	for _, p := range codec.Protocols() {
		if ProviderName(p, "") == string(p) {
			t.Errorf("%s has no provider name", p)
		}
	}
}
