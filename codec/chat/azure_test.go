package chat

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// Azure OpenAI's Chat Completions answers carry its content filter's
// results: in a stream, a first chunk with only prompt_filter_results
// (no id, model or choices), then content_filter_results on every choice;
// in a body, both beside the usual members. They annotate the answer and
// carry nothing a client of another protocol reads.
func TestAzureContentFilterAnnotations(t *testing.T) {
	stream := "data: {\"choices\":[],\"created\":0,\"id\":\"\",\"model\":\"\",\"object\":\"\",\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{\"hate\":{\"filtered\":false,\"severity\":\"safe\"}}}]}\n\n" +
		"data: {\"choices\":[{\"content_filter_results\":{},\"delta\":{\"content\":\"\",\"refusal\":null,\"role\":\"assistant\"},\"finish_reason\":null,\"index\":0,\"logprobs\":null}],\"created\":1733000000,\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion.chunk\",\"system_fingerprint\":\"fp_1\"}\n\n" +
		"data: {\"choices\":[{\"content_filter_results\":{\"hate\":{\"filtered\":false,\"severity\":\"safe\"}},\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null,\"index\":0,\"logprobs\":null}],\"created\":1733000000,\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion.chunk\"}\n\n" +
		"data: {\"choices\":[{\"content_filter_results\":{},\"delta\":{},\"finish_reason\":\"stop\",\"index\":0,\"logprobs\":null}],\"created\":1733000000,\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion.chunk\",\"usage\":null}\n\n" +
		"data: {\"choices\":[],\"created\":1733000000,\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o-2024-11-20\",\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":1,\"prompt_tokens\":5,\"total_tokens\":6}}\n\n" +
		"data: [DONE]\n\n"
	for _, p := range []codec.Protocol{codec.AzureOpenAI, codec.OpenAIChat} {
		s := codectest.Summarize(codectest.DecodeStream(t, p, stream, nil))
		if s.Text != "Hello" || !s.Complete || s.ID != "chatcmpl-1" || s.Model != "gpt-4o-2024-11-20" || s.Usage.OutputTokens != 1 || s.Stop != mapping.StopEnd {
			t.Errorf("%s stream: %+v", p, s)
		}
	}

	body := `{"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"finish_reason":"stop","index":0,"logprobs":null,` +
		`"message":{"annotations":[],"content":"Hello","refusal":null,"role":"assistant"}}],"created":1733000000,"id":"chatcmpl-1",` +
		`"model":"gpt-4o-2024-11-20","object":"chat.completion","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],` +
		`"system_fingerprint":"fp_1","usage":{"completion_tokens":1,"prompt_tokens":5,"total_tokens":6}}`
	var resp codec.Response
	if err := codec.DecodeResponse(codec.AzureOpenAI, []byte(body), &resp); err != nil || resp.ID != "chatcmpl-1" || len(resp.Content) != 1 || resp.Content[0].Text != "Hello" {
		t.Errorf("body: %+v %v", resp, err)
	}
}
