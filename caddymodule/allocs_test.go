package caddymodule

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
)

// The allocation budgets of the request paths: how many allocations
// ServeHTTP may make for one request of an agent-sized body, translated or
// passed through (the test's request and recorder included), and per event
// of a translated stream. Allocation counts do not depend on the machine,
// so CI holds them to within two allocations or 2% (sync.Pool empties at
// a garbage collection, which large bodies cause at varying moments): a
// change that adds allocations on these paths fails here and must either
// remove them or raise the budget on purpose, saying why (timing
// stays in the benchmarks). A translated request reuses pooled memory for
// its conversation (codec.Scratch) and names its messages with paths made
// once per process, so its count does not grow with the conversation's
// length.
var allocBudgets = map[string]float64{
	"anthropic-messages->openai-chat 5KB":          51,
	"anthropic-messages->openai-chat 92KB":         51,
	"anthropic-messages->openai-chat 1MB":          52,
	"anthropic-messages->anthropic-messages 5KB":   44,
	"anthropic-messages->anthropic-messages 92KB":  44,
	"anthropic-messages->anthropic-messages 1MB":   44,
	"anthropic-messages->gemini 5KB":               54,
	"anthropic-messages->gemini 92KB":              54,
	"anthropic-messages->gemini 1MB":               54,
	"openai-responses->openai-chat 5KB":            63,
	"openai-responses->openai-chat 92KB":           63,
	"openai-responses->openai-chat 1MB":            63,
	"openai-responses->anthropic-messages 5KB":     63,
	"openai-responses->anthropic-messages 92KB":    63,
	"openai-responses->anthropic-messages 1MB":     63,
	"openai-responses->gemini 5KB":                 66,
	"openai-responses->gemini 92KB":                66,
	"openai-responses->gemini 1MB":                 66,
	"gemini-interactions->openai-chat 5KB":         75,
	"gemini-interactions->openai-chat 92KB":        75,
	"gemini-interactions->openai-chat 1MB":         75,
	"gemini-interactions->anthropic-messages 5KB":  75,
	"gemini-interactions->anthropic-messages 92KB": 75,
	"gemini-interactions->anthropic-messages 1MB":  75,
	"gemini-interactions->gemini 5KB":              78,
	"gemini-interactions->gemini 92KB":             78,
	"gemini-interactions->gemini 1MB":              89,
}

// allocStreamBudgets are the allocations of a translated stream of ten
// events, request included.
var allocStreamBudgets = map[string]float64{
	"anthropic-messages->openai-chat":         73,
	"anthropic-messages->anthropic-messages":  65,
	"anthropic-messages->gemini":              74,
	"openai-responses->openai-chat":           95,
	"openai-responses->anthropic-messages":    95,
	"openai-responses->gemini":                95,
	"gemini-interactions->openai-chat":        101,
	"gemini-interactions->anthropic-messages": 101,
	"gemini-interactions->gemini":             101,
}

// allocEventBudgets are the allocations each further event of a translated
// stream may cost (upstream event decoded, client events encoded and
// written).
var allocEventBudgets = map[string]float64{
	"anthropic-messages->openai-chat":         0,
	"anthropic-messages->gemini":              0,
	"openai-responses->openai-chat":           0,
	"openai-responses->anthropic-messages":    0,
	"openai-responses->gemini":                0,
	"anthropic-messages->anthropic-messages":  0,
	"gemini-interactions->openai-chat":        0,
	"gemini-interactions->anthropic-messages": 0,
	"gemini-interactions->gemini":             0,
}

// allocSizes are the agent-sized bodies: a long system prompt, tools and
// a tool loop of n steps.
var allocSizes = []struct {
	name  string
	steps int
}{{"5KB", 2}, {"92KB", 60}, {"1MB", 700}}

// allocConversation is an agent conversation of n tool-loop steps as a
// canonical request.
func allocConversation(n int, stream bool) *codec.Request {
	req := &codec.Request{Model: "claude-sonnet-4-5", Stream: stream, MaxTokens: codec.OptInt{Value: 1024, Set: true},
		System: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("You are a careful coding agent. ", 60)}}}
	for i := range 6 {
		req.Tools = append(req.Tools, codec.Tool{Name: fmt.Sprintf("tool_%d", i), Description: "Reads one file of the repository.",
			Parameters: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`})
	}
	req.Messages = append(req.Messages, codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Fix the failing test."}}})
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartText, Text: "Reading the next file."},
				{Type: codec.PartToolCall, ToolCallID: id, ToolName: "tool_1", Arguments: fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i)}}},
			codec.Message{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: id, ToolName: "tool_1", Content: []codec.Part{{Type: codec.PartText,
					Text: strings.Repeat("func f() { return \"line\" }\n", 55)}}}}})
	}
	return req
}

// allocAnswers are the upstream answers of each protocol: a JSON body, and
// a stream's first events, one content event (repeated), and last events.
var allocAnswers = map[string]struct{ json, head, event, tail string }{
	"openai-chat": {
		json:  `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		head:  "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
		event: "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok \"}}]}\n\n",
		tail: "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\ndata: [DONE]\n\n",
	},
	"anthropic-messages": {
		json: `{"id":"msg","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
		head: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
		event: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tok \"}}\n\n",
		tail: "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	},
	"gemini": {
		json:  `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2},"modelVersion":"m"}`,
		head:  "",
		event: "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"tok \"}]}}],\"modelVersion\":\"m\"}\r\n\r\n",
		tail:  "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":1,\"candidatesTokenCount\":1,\"totalTokenCount\":2},\"modelVersion\":\"m\"}\r\n\r\n",
	},
}

// allocServer runs client requests of one pair through a provisioned
// handler whose next handler answers as the upstream would.
type allocServer struct {
	h        *Handler
	client   codec.Protocol
	upstream string
	rctx     context.Context
	// The answers' bytes, made once: writing a string to a writer without
	// WriteString would allocate per event here, not in llmbridge.
	answer, head, event, tail []byte
}

func newAllocServer(t testing.TB, client codec.Protocol, upstream string) *allocServer {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	h := &Handler{Upstream: upstream}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	// A production logger runs at INFO: the debug lines (dropped
	// fields) would count the test's log output, not llmbridge's work.
	h.setLogger(zap.NewNop())
	rctx := context.WithValue(context.Background(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	rctx = context.WithValue(rctx, caddyhttp.VarsCtxKey, map[string]any{})
	a := allocAnswers[upstream]
	return &allocServer{h: h, client: client, upstream: upstream, rctx: rctx,
		answer: []byte(a.json), head: []byte(a.head), event: []byte(a.event), tail: []byte(a.tail)}
}

// serve sends body, answered with events content events when streamed.
func (s *allocServer) serve(t testing.TB, body []byte, stream bool, events int) {
	answer, head, event, tail := s.answer, s.head, s.event, s.tail
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, err := w.Write(answer)
			return err
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write(head)
		for range events {
			_, _ = w.Write(event)
		}
		_, err := w.Write(tail)
		return err
	})
	path := "/v1/messages"
	switch s.client {
	case codec.OpenAIResponses:
		path = "/v1/responses"
	case interactions.Gemini:
		path = "/v1beta/interactions"
	}
	r := httptest.NewRequestWithContext(s.rctx, http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("X-Api-Key", "k")
	r.Header.Set("Authorization", "Bearer k")
	w := httptest.NewRecorder()
	if err := s.h.ServeHTTP(w, r, next); err != nil || w.Code != 200 {
		t.Fatalf("%s -> %s: %v, status %d: %.300s", s.client, s.upstream, err, w.Code, w.Body.String())
	}
}

// TestAllocationBudgets holds the request paths to their allocation
// budgets: agent-sized Anthropic, Responses and Interactions bodies of
// 5 KB, 92 KB and 1 MB to Chat, Anthropic and Gemini upstreams, and each
// event of a translated stream.
func TestAllocationBudgets(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation budgets: the race detector makes sync.Pool drop items at random, so counts vary")
	}
	for _, client := range []codec.Protocol{codec.AnthropicMessages, codec.OpenAIResponses, interactions.Gemini} {
		for _, upstream := range []string{"openai-chat", "anthropic-messages", "gemini"} {
			pair := string(client) + "->" + upstream
			s := newAllocServer(t, client, upstream)
			for _, size := range allocSizes {
				body, err := codec.AppendRequest(nil, client, allocConversation(size.steps, false), codec.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				name := pair + " " + size.name
				got := testing.AllocsPerRun(20, func() { s.serve(t, body, false, 0) })
				t.Logf("%s (%d bytes): %.0f allocations per request", name, len(body), got)
				if budget, ok := allocBudgets[name]; !ok || got > budget+max(2, budget/50) {
					t.Errorf("%s: %.0f allocations per request, budget %v", name, got, budget)
				}
			}
			body, err := codec.AppendRequest(nil, client, allocConversation(allocSizes[0].steps, true), codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			few := testing.AllocsPerRun(20, func() { s.serve(t, body, true, 10) })
			many := testing.AllocsPerRun(20, func() { s.serve(t, body, true, 110) })
			perEvent := (many - few) / 100
			t.Logf("%s stream: %.0f allocations with 10 events, %.2f per further event", pair, few, perEvent)
			if budget, ok := allocStreamBudgets[pair]; !ok || few > budget+2 {
				t.Errorf("%s: %.0f allocations per stream of 10 events, budget %v", pair, few, budget)
			}
			// The recorder's buffer grows now and then: a tenth of an
			// allocation per event is its, not llmbridge's.
			if budget, ok := allocEventBudgets[pair]; !ok || perEvent > budget+0.1 {
				t.Errorf("%s: %.2f allocations per stream event, budget %v", pair, perEvent, budget)
			}
		}
	}
}
