package caddytest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"
)

// This file gives the client adapters their reasoning side: an
// agent conversation of two turns in which each SDK keeps and replays the
// assistant's reasoning exactly as that SDK (or the real agents built on
// it) does, and a probe that sends one request with a protocol's own
// reasoning setting and reports what the client made of the answer: text,
// refusal, stop reason with its details, and usage in the client
// protocol's own fields.

// rzPrompt and rzResult are the agent conversation's user prompt and the
// result the client's tool gives.
const (
	rzPrompt = "What's the weather in Lisbon?"
	rzResult = "Sunny, 24 °C"
)

// rzToolSchema is get_weather's parameters.
var rzToolSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"city": map[string]any{"type": "string"}},
	"required":   []string{"city"},
}

// replayOptions is how an agent conversation runs.
type replayOptions struct {
	stream bool
	// dropThoughts makes a Gemini client keep thought parts out of the
	// history it replays, as Gemini CLI does.
	dropThoughts bool
	// between runs after turn 1, before turn 2: the test reconfigures the
	// mock there.
	between func()
}

// replayOutcome is what a client got in the two turns of an agent
// conversation.
type replayOutcome struct {
	// Calls are the tool calls of turn 1; Stop1 its normalised stop.
	Calls []toolCall
	Stop1 string
	// Reasoning is the reasoning text the client was shown in turn 1.
	Reasoning string
	// Text2 and Stop2 are turn 2's answer.
	Text2, Stop2 string
}

// replayClient is a client SDK that runs the agent conversation.
type replayClient interface {
	protocol() proto
	agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error)
}

// probeRequest is one request of the probe.
type probeRequest struct {
	Stream bool
	// MaxTokens is the client's output limit; 0 sends none (Anthropic
	// clients, which must send one, send 1024).
	MaxTokens int64
	// Extra are top-level body fields the OpenAI and Anthropic clients set
	// (their protocol's reasoning settings).
	Extra map[string]any
	// Thinking is the genai clients' thinking configuration.
	Thinking *genai.ThinkingConfig
}

// probeOutcome is what a client SDK made of a probe's answer.
type probeOutcome struct {
	Text, Refusal string
	// Stop is normalised as result.Stop; Wire is the protocol's own value
	// (finish_reason, status[/incomplete reason], stop_reason,
	// finishReason, or "blocked:"+blockReason).
	Stop, Wire string
	// Explanation and Category are Anthropic's stop_details, or Gemini's
	// finishMessage (Explanation).
	Explanation, Category string
	// Usage is the usage the client got, by the client protocol's own
	// field names (absent fields are missing).
	Usage    map[string]int64
	Terminal bool
	// Model is the model the answer names (Gemini modelVersion).
	Model string
}

// probeClient is a client SDK that sends probes.
type probeClient interface {
	protocol() proto
	probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error)
}

func replayClients() map[proto]replayClient {
	return map[proto]replayClient{
		openaiChat:         chatClient{},
		openaiResponses:    responsesClient{},
		anthropicMsgs:      anthropicClient{},
		vertexAnthropic:    anthropicClient{vertex: true},
		bedrockConverse:    converseClient{},
		bedrockAnthropic:   anthropicClient{bedrock: true},
		gemini:             genaiClient{backend: genai.BackendGeminiAPI},
		vertex:             genaiClient{backend: genai.BackendVertexAI},
		geminiInteractions: interactionsClient{},
		vertexInteractions: interactionsClient{vertex: true},
	}
}

func probeClients() map[proto]probeClient {
	return map[proto]probeClient{
		openaiChat:         chatClient{},
		openaiResponses:    responsesClient{},
		anthropicMsgs:      anthropicClient{},
		vertexAnthropic:    anthropicClient{vertex: true},
		bedrockConverse:    converseClient{},
		bedrockAnthropic:   anthropicClient{bedrock: true},
		gemini:             genaiClient{backend: genai.BackendGeminiAPI},
		vertex:             genaiClient{backend: genai.BackendVertexAI},
		geminiInteractions: interactionsClient{},
		vertexInteractions: interactionsClient{vertex: true},
	}
}

func openaiClientFor(base string) openai.Client {
	return openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0),
		openaiopt.WithHTTPClient(streamOptions{}.httpClient()))
}

func jsonSets(extra map[string]any) []openaiopt.RequestOption {
	keys := sortedKeys(extra)
	var opts []openaiopt.RequestOption
	for _, k := range keys {
		opts = append(opts, openaiopt.WithJSONSet(k, extra[k]))
	}
	return opts
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rawString decodes a JSON string member an SDK kept as an extra field.
func rawString(raw string) string {
	var s string
	if raw == "" || json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// --- openai-chat ---

// agentReplay replays the assistant message with ToParam() plus the
// reasoning_content it got, as an extra field: what reasoning-aware Chat
// clients such as Zed send back.
func (chatClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	c := openaiClientFor(base)
	tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "get_weather", Parameters: shared.FunctionParameters(rzToolSchema)})}
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(rzPrompt)}
	params := func() openai.ChatCompletionNewParams {
		p := openai.ChatCompletionNewParams{Model: openaiChat.defaultModel(), Messages: msgs, Tools: tools,
			MaxCompletionTokens: openai.Int(20000), ReasoningEffort: shared.ReasoningEffortHigh}
		if o.stream {
			p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		}
		return p
	}
	var out replayOutcome
	turn := func() (openai.ChatCompletionMessage, string, string, error) {
		if !o.stream {
			resp, err := c.Chat.Completions.New(ctx, params())
			if err != nil || len(resp.Choices) == 0 {
				return openai.ChatCompletionMessage{}, "", "", err
			}
			ch := resp.Choices[0]
			return ch.Message, rawString(ch.Message.JSON.ExtraFields["reasoning_content"].Raw()), string(ch.FinishReason), nil
		}
		st := c.Chat.Completions.NewStreaming(ctx, params())
		defer st.Close()
		var acc openai.ChatCompletionAccumulator
		var reasoning strings.Builder
		for st.Next() {
			chunk := st.Current()
			acc.AddChunk(chunk)
			for _, ch := range chunk.Choices {
				reasoning.WriteString(rawString(ch.Delta.JSON.ExtraFields["reasoning_content"].Raw()))
			}
		}
		if err := st.Err(); err != nil || len(acc.Choices) == 0 {
			return openai.ChatCompletionMessage{}, "", "", err
		}
		return acc.Choices[0].Message, reasoning.String(), string(acc.Choices[0].FinishReason), nil
	}
	msg, reasoning, finish, err := turn()
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	out.Reasoning, out.Stop1 = reasoning, normaliseStop(openaiChat, finish)
	for _, tc := range msg.ToolCalls {
		out.Calls = append(out.Calls, toolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	asst := msg.ToAssistantMessageParam()
	if reasoning != "" {
		asst.SetExtraFields(map[string]any{"reasoning_content": reasoning})
	}
	msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &asst})
	for _, call := range out.Calls {
		msgs = append(msgs, openai.ToolMessage(rzResult, call.ID))
	}
	if o.between != nil {
		o.between()
	}
	msg, _, finish, err = turn()
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	out.Text2, out.Stop2 = msg.Content, normaliseStop(openaiChat, finish)
	return out, nil
}

func (chatClient) probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error) {
	c := openaiClientFor(base)
	params := openai.ChatCompletionNewParams{Model: openaiChat.defaultModel(), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me something.")}}
	if r.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(r.MaxTokens)
	}
	opts := jsonSets(r.Extra)
	var out probeOutcome
	usage := func(u openai.CompletionUsage) {
		if !u.JSON.PromptTokens.Valid() {
			return
		}
		out.Usage = map[string]int64{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens}
		if u.PromptTokensDetails.JSON.CachedTokens.Valid() {
			out.Usage["cached_tokens"] = u.PromptTokensDetails.CachedTokens
		}
		if u.CompletionTokensDetails.JSON.ReasoningTokens.Valid() {
			out.Usage["reasoning_tokens"] = u.CompletionTokensDetails.ReasoningTokens
		}
	}
	if !r.Stream {
		resp, err := c.Chat.Completions.New(ctx, params, opts...)
		if err != nil {
			return out, err
		}
		if len(resp.Choices) > 0 {
			ch := resp.Choices[0]
			out.Text, out.Refusal, out.Wire = ch.Message.Content, ch.Message.Refusal, string(ch.FinishReason)
		}
		usage(resp.Usage)
		out.Terminal, out.Model = true, resp.Model
	} else {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		st := c.Chat.Completions.NewStreaming(ctx, params, opts...)
		defer st.Close()
		var text, refusal strings.Builder
		for st.Next() {
			chunk := st.Current()
			if out.Model == "" {
				out.Model = chunk.Model
			} else if chunk.Model != out.Model {
				out.Wire += fmt.Sprintf(" (a chunk names the model %q after %q)", chunk.Model, out.Model)
			}
			for _, ch := range chunk.Choices {
				text.WriteString(ch.Delta.Content)
				refusal.WriteString(ch.Delta.Refusal)
				if ch.FinishReason != "" {
					out.Wire, out.Terminal = ch.FinishReason, true
				}
			}
			if chunk.JSON.Usage.Valid() && chunk.Usage.JSON.PromptTokens.Valid() {
				usage(chunk.Usage)
			}
		}
		out.Text, out.Refusal = text.String(), refusal.String()
		if err := st.Err(); err != nil {
			return out, err
		}
	}
	out.Stop = normaliseStop(openaiChat, out.Wire)
	if out.Stop == "end" && out.Refusal != "" {
		out.Stop = "refusal"
	}
	return out, nil
}

// --- openai-responses ---

// agentReplay replays every output item of turn 1 as an input item
// (ToParam of each typed item), as Codex does with store false; a streamed
// turn's items are those of its response.output_item.done events.
func (responsesClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	c := openaiClientFor(base)
	tools := []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather", Parameters: rzToolSchema, Strict: openai.Bool(false)}}}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(rzPrompt, responses.EasyInputMessageRoleUser)}
	params := func() responses.ResponseNewParams {
		return responses.ResponseNewParams{Model: openaiResponses.defaultModel(), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Tools: tools, MaxOutputTokens: openai.Int(20000), Store: openai.Bool(false),
			Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortHigh, Summary: shared.ReasoningSummaryAuto},
			Include:   []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}}
	}
	turn := func() ([]responses.ResponseOutputItemUnion, string, error) {
		if !o.stream {
			resp, err := c.Responses.New(ctx, params())
			if err != nil {
				return nil, "", err
			}
			return resp.Output, responsesResult(resp).Stop, nil
		}
		st := c.Responses.NewStreaming(ctx, params())
		defer st.Close()
		done := map[int64]responses.ResponseOutputItemUnion{}
		stop := ""
		var failure error
		for st.Next() {
			ev := st.Current()
			switch ev.Type {
			case "response.output_item.done":
				done[ev.OutputIndex] = ev.Item
			case "response.completed", "response.incomplete":
				resp := ev.Response
				stop = responsesResult(&resp).Stop
			case "error":
				failure = &responsesStreamError{Event: ev.Type, Code: ev.Code, Message: ev.Message}
			case "response.failed":
				failure = &responsesStreamError{Event: ev.Type, Code: string(ev.Response.Error.Code), Message: ev.Response.Error.Message}
			}
		}
		if err := st.Err(); err != nil {
			return nil, "", err
		}
		if failure != nil {
			return nil, "", failure
		}
		items := make([]responses.ResponseOutputItemUnion, 0, len(done))
		for i := int64(0); i < int64(len(done)); i++ {
			it, ok := done[i]
			if !ok {
				return nil, "", fmt.Errorf("the stream has no output_item.done for output_index %d (of %d)", i, len(done))
			}
			items = append(items, it)
		}
		return items, stop, nil
	}
	var out replayOutcome
	items, stop, err := turn()
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	out.Stop1 = stop
	for _, it := range items {
		switch it.Type {
		case "reasoning":
			r := it.AsReasoning()
			for _, s := range r.Summary {
				out.Reasoning += s.Text
			}
			p := r.ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		case "function_call":
			fc := it.AsFunctionCall()
			out.Calls = append(out.Calls, toolCall{ID: fc.CallID, Name: fc.Name, Args: fc.Arguments})
			p := fc.ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
		case "message":
			p := it.AsMessage().ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		default:
			return out, fmt.Errorf("turn 1: unexpected output item type %q", it.Type)
		}
	}
	if out.Stop1 == "end" && len(out.Calls) > 0 {
		out.Stop1 = "tool_use"
	}
	for _, call := range out.Calls {
		item := responses.ResponseInputItemParamOfFunctionCallOutput(rzResult)
		item.OfFunctionCallOutput.CallID = openai.String(call.ID)
		input = append(input, item)
	}
	if o.between != nil {
		o.between()
	}
	items, stop, err = turn()
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	out.Stop2 = stop
	for _, it := range items {
		if it.Type == "message" {
			for _, ct := range it.AsMessage().Content {
				out.Text2 += ct.Text
			}
		}
	}
	return out, nil
}

func (responsesClient) probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error) {
	c := openaiClientFor(base)
	params := responses.ResponseNewParams{Model: openaiResponses.defaultModel(),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Tell me something.")}}
	if r.MaxTokens > 0 {
		params.MaxOutputTokens = openai.Int(r.MaxTokens)
	}
	opts := jsonSets(r.Extra)
	var out probeOutcome
	final := func(resp *responses.Response) {
		out.Stop = responsesResult(resp).Stop
		out.Wire, out.Model = string(resp.Status), resp.Model
		if resp.IncompleteDetails.Reason != "" {
			out.Wire += "/" + resp.IncompleteDetails.Reason
		}
		var text, refusal string
		for _, it := range resp.Output {
			if it.Type != "message" {
				continue
			}
			for _, ct := range it.AsMessage().Content {
				switch ct.Type {
				case "output_text":
					text += ct.Text
				case "refusal":
					refusal += ct.Refusal
				}
			}
		}
		if !r.Stream {
			out.Text, out.Refusal = text, refusal
		} else if text != out.Text || refusal != out.Refusal {
			out.Wire += fmt.Sprintf(" (final object text %q refusal %q differ from the stream's)", text, refusal)
		}
		if refusal != "" && out.Stop == "end" {
			out.Stop = "refusal"
		}
		if resp.JSON.Usage.Valid() {
			u := resp.Usage
			out.Usage = map[string]int64{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
			if u.InputTokensDetails.JSON.CachedTokens.Valid() {
				out.Usage["cached_tokens"] = u.InputTokensDetails.CachedTokens
			}
			if u.OutputTokensDetails.JSON.ReasoningTokens.Valid() {
				out.Usage["reasoning_tokens"] = u.OutputTokensDetails.ReasoningTokens
			}
		}
		out.Terminal = true
	}
	if !r.Stream {
		resp, err := c.Responses.New(ctx, params, opts...)
		if err != nil {
			return out, err
		}
		final(resp)
		return out, nil
	}
	st := c.Responses.NewStreaming(ctx, params, opts...)
	defer st.Close()
	var failure error
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "response.output_text.delta":
			out.Text += ev.Delta
		case "response.refusal.delta":
			out.Refusal += ev.Delta
		case "response.completed", "response.incomplete":
			resp := ev.Response
			final(&resp)
		case "error":
			failure = &responsesStreamError{Event: ev.Type, Code: ev.Code, Message: ev.Message}
		case "response.failed":
			failure = &responsesStreamError{Event: ev.Type, Code: string(ev.Response.Error.Code), Message: ev.Response.Error.Message}
		}
	}
	if err := st.Err(); err != nil {
		return out, err
	}
	return out, failure
}

// --- anthropic-messages, vertex-anthropic ---

// baseOptions are the client options for base, without sampling
// parameters (Anthropic rejects a temperature other than 1 with thinking).
func (a anthropicClient) baseOptions(ctx context.Context, base string) []anthropicopt.RequestOption {
	opts := []anthropicopt.RequestOption{anthropicopt.WithHTTPClient(streamOptions{}.httpClient()), anthropicopt.WithMaxRetries(0)}
	return append(opts, a.platformOptions(ctx, base, clientProject)...)
}

// message sends params and returns the message, accumulated with the SDK's
// Accumulate when streamed.
func (a anthropicClient) message(ctx context.Context, c anthropic.Client, params anthropic.MessageNewParams, stream bool, opts ...anthropicopt.RequestOption) (*anthropic.Message, bool, error) {
	if !stream {
		msg, err := c.Messages.New(ctx, params, opts...)
		return msg, err == nil, err
	}
	st := c.Messages.NewStreaming(ctx, params, opts...)
	defer st.Close()
	var msg anthropic.Message
	var accErr error
	terminal := false
	for st.Next() {
		ev := st.Current()
		if err := msg.Accumulate(ev); err != nil && accErr == nil {
			accErr = err
		}
		if ev.Type == "message_stop" {
			terminal = true
		}
	}
	if err := st.Err(); err != nil {
		return &msg, terminal, err
	}
	if accErr != nil {
		return &msg, terminal, fmt.Errorf("the SDK's accumulator rejected the stream: %w", accErr)
	}
	return &msg, terminal, nil
}

// agentReplay replays turn 1 with Message.ToParam(), as Claude Code and
// the SDK's own tool runner do.
func (a anthropicClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	c := anthropic.NewClient(a.baseOptions(ctx, base)...)
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
		InputSchema: anthropic.ToolInputSchemaParam{Properties: rzToolSchema["properties"], Required: []string{"city"}}}}}
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(rzPrompt))}
	params := func() anthropic.MessageNewParams {
		return anthropic.MessageNewParams{Model: anthropic.Model(a.protocol().defaultModel()), MaxTokens: 20000, Messages: msgs, Tools: tools,
			Thinking: anthropic.ThinkingConfigParamOfEnabled(16000)}
	}
	var out replayOutcome
	msg, _, err := a.message(ctx, c, params(), o.stream)
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	out.Stop1 = normaliseStop(a.protocol(), string(msg.StopReason))
	for _, b := range msg.Content {
		switch b.Type {
		case "thinking":
			out.Reasoning += b.Thinking
		case "tool_use":
			out.Calls = append(out.Calls, toolCall{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	msgs = append(msgs, msg.ToParam())
	var results []anthropic.ContentBlockParamUnion
	for _, call := range out.Calls {
		results = append(results, anthropic.NewToolResultBlock(call.ID, rzResult, false))
	}
	msgs = append(msgs, anthropic.NewUserMessage(results...))
	if o.between != nil {
		o.between()
	}
	msg, _, err = a.message(ctx, c, params(), o.stream)
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	for _, b := range msg.Content {
		if b.Type == "text" {
			out.Text2 += b.Text
		}
	}
	out.Stop2 = normaliseStop(a.protocol(), string(msg.StopReason))
	return out, nil
}

func (a anthropicClient) probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error) {
	c := anthropic.NewClient(a.baseOptions(ctx, base)...)
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = 1024
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(a.protocol().defaultModel()), MaxTokens: maxTokens,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Tell me something."))}}
	var opts []anthropicopt.RequestOption
	for _, k := range sortedKeys(r.Extra) {
		opts = append(opts, anthropicopt.WithJSONSet(k, r.Extra[k]))
	}
	var out probeOutcome
	msg, terminal, err := a.message(ctx, c, params, r.Stream, opts...)
	if err != nil {
		return out, err
	}
	for _, b := range msg.Content {
		if b.Type == "text" {
			out.Text += b.Text
		}
	}
	out.Wire, out.Model = string(msg.StopReason), string(msg.Model)
	out.Stop = normaliseStop(a.protocol(), out.Wire)
	out.Explanation, out.Category = msg.StopDetails.Explanation, string(msg.StopDetails.Category)
	u := msg.Usage
	if u.JSON.InputTokens.Valid() || u.JSON.OutputTokens.Valid() {
		out.Usage = map[string]int64{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
		if u.JSON.CacheReadInputTokens.Valid() {
			out.Usage["cache_read_input_tokens"] = u.CacheReadInputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			out.Usage["cache_creation_input_tokens"] = u.CacheCreationInputTokens
		}
		if u.OutputTokensDetails.JSON.ThinkingTokens.Valid() {
			out.Usage["thinking_tokens"] = u.OutputTokensDetails.ThinkingTokens
		}
	}
	out.Terminal = terminal
	return out, nil
}

// --- gemini, vertex ---

// agentReplay replays the returned Content: the candidate's content as
// the model turn (the parts of every streamed chunk, in order, in one
// Content, as Gemini CLI keeps a streamed turn). With dropThoughts the
// thought parts are left out of it, as Gemini CLI does; the thought
// signatures on the other parts stay.
func (g genaiClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	c, err := g.newClient(ctx, base, clientProject, sdkTransport)
	if err != nil {
		return replayOutcome{}, err
	}
	cfg := rzGenaiConfig()
	model := g.protocol().defaultModel()
	contents := []*genai.Content{genai.NewContentFromText(rzPrompt, genai.RoleUser)}
	var out replayOutcome
	turn := func() (*genai.Content, string, error) {
		answer := &genai.Content{Role: genai.RoleModel}
		finish := ""
		take := func(resp *genai.GenerateContentResponse) {
			if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
				return
			}
			cand := resp.Candidates[0]
			if cand.FinishReason != "" {
				finish = string(cand.FinishReason)
			}
			if cand.Content == nil {
				return
			}
			for _, p := range cand.Content.Parts {
				// A part that carries nothing (the empty text of a
				// stream's last chunk, which genai decodes into a part
				// that encodes as {}) is not history: Gemini rejects
				// it, and genai's Chat leaves such chunks out too.
				if p != nil && (genaiPartHasData(p) || p.Thought || len(p.ThoughtSignature) > 0) {
					answer.Parts = append(answer.Parts, p)
				}
			}
		}
		if !o.stream {
			resp, err := c.Models.GenerateContent(ctx, model, contents, cfg)
			if err != nil {
				return nil, "", err
			}
			take(resp)
		} else {
			for resp, err := range c.Models.GenerateContentStream(ctx, model, contents, cfg) {
				if err != nil {
					return nil, "", err
				}
				take(resp)
			}
		}
		return answer, finish, nil
	}
	answer, finish, err := turn()
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	replayed := &genai.Content{Role: genai.RoleModel}
	for _, p := range answer.Parts {
		switch {
		case p == nil:
			continue
		case p.Thought:
			out.Reasoning += p.Text
			if o.dropThoughts {
				continue
			}
		case p.FunctionCall != nil:
			args, _ := json.Marshal(p.FunctionCall.Args)
			out.Calls = append(out.Calls, toolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: string(args)})
		}
		replayed.Parts = append(replayed.Parts, p)
	}
	out.Stop1 = normaliseStop(g.protocol(), finish)
	if out.Stop1 == "end" && len(out.Calls) > 0 {
		out.Stop1 = "tool_use"
	}
	contents = append(contents, replayed)
	var results []*genai.Part
	for _, call := range out.Calls {
		p := genai.NewPartFromFunctionResponse(call.Name, map[string]any{"output": rzResult})
		p.FunctionResponse.ID = call.ID
		results = append(results, p)
	}
	contents = append(contents, genai.NewContentFromParts(results, genai.RoleUser))
	if o.between != nil {
		o.between()
	}
	answer, finish, err = turn()
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	for _, p := range answer.Parts {
		if p != nil && !p.Thought {
			out.Text2 += p.Text
		}
	}
	out.Stop2 = normaliseStop(g.protocol(), finish)
	return out, nil
}

// genaiPartHasData reports whether p carries text or another data field,
// as genai's Chat judges parts.
func genaiPartHasData(p *genai.Part) bool {
	return p.Text != "" || p.InlineData != nil || p.FileData != nil || p.FunctionCall != nil || p.FunctionResponse != nil ||
		p.ExecutableCode != nil || p.CodeExecutionResult != nil
}

// rzGenaiConfig is the genai clients' configuration for the agent
// conversation: thinking with thought summaries, and get_weather.
func rzGenaiConfig() *genai.GenerateContentConfig {
	budget := int32(16000)
	return &genai.GenerateContentConfig{MaxOutputTokens: 20000,
		ThinkingConfig: &genai.ThinkingConfig{ThinkingBudget: &budget, IncludeThoughts: true},
		Tools:          []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_weather", ParametersJsonSchema: rzToolSchema}}}}}
}

// genaiChatClient runs the agent conversation in a genai Chat, the SDK's
// own conversation helper, which replays its curated history: the
// returned Content of every turn it judges valid.
type genaiChatClient struct{ genaiClient }

// agentReplay sends both turns through one genai Chat.
func (g genaiChatClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	c, err := g.newClient(ctx, base, clientProject, sdkTransport)
	if err != nil {
		return replayOutcome{}, err
	}
	chat, err := c.Chats.Create(ctx, g.protocol().defaultModel(), rzGenaiConfig(), nil)
	if err != nil {
		return replayOutcome{}, err
	}
	var out replayOutcome
	send := func(part *genai.Part) (text, finish string, err error) {
		take := func(resp *genai.GenerateContentResponse) {
			if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
				return
			}
			cand := resp.Candidates[0]
			if cand.FinishReason != "" {
				finish = string(cand.FinishReason)
			}
			if cand.Content == nil {
				return
			}
			for _, p := range cand.Content.Parts {
				switch {
				case p == nil:
				case p.Thought:
					out.Reasoning += p.Text
				case p.FunctionCall != nil:
					args, _ := json.Marshal(p.FunctionCall.Args)
					out.Calls = append(out.Calls, toolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: string(args)})
				default:
					text += p.Text
				}
			}
		}
		if !o.stream {
			resp, err := chat.Send(ctx, part)
			if err != nil {
				return "", "", err
			}
			take(resp)
			return text, finish, nil
		}
		for resp, err := range chat.SendStream(ctx, part) {
			if err != nil {
				return "", "", err
			}
			take(resp)
		}
		return text, finish, nil
	}
	_, finish, err := send(genai.NewPartFromText(rzPrompt))
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	out.Stop1 = normaliseStop(g.protocol(), finish)
	if out.Stop1 == "end" && len(out.Calls) > 0 {
		out.Stop1 = "tool_use"
	}
	if len(out.Calls) != 1 {
		return out, fmt.Errorf("turn 1: %d calls, want 1", len(out.Calls))
	}
	if o.between != nil {
		o.between()
	}
	resp := genai.NewPartFromFunctionResponse(out.Calls[0].Name, map[string]any{"output": rzResult})
	resp.FunctionResponse.ID = out.Calls[0].ID
	text, finish, err := send(resp)
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	out.Text2, out.Stop2 = text, normaliseStop(g.protocol(), finish)
	return out, nil
}

func (g genaiClient) probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error) {
	c, err := g.newClient(ctx, base, clientProject, sdkTransport)
	if err != nil {
		return probeOutcome{}, err
	}
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: int32(r.MaxTokens), ThinkingConfig: r.Thinking}
	contents := []*genai.Content{genai.NewContentFromText("Tell me something.", genai.RoleUser)}
	var out probeOutcome
	take := func(resp *genai.GenerateContentResponse) {
		if out.Model == "" {
			out.Model = resp.ModelVersion
		} else if resp.ModelVersion != out.Model {
			out.Wire += fmt.Sprintf(" (a chunk names the model %q after %q)", resp.ModelVersion, out.Model)
		}
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			out.Wire, out.Terminal = "blocked:"+string(pf.BlockReason), true
		}
		if u := resp.UsageMetadata; u != nil {
			// genai drops zero counts (omitempty), so only non-zero ones
			// are known to have been sent.
			out.Usage = map[string]int64{}
			for k, v := range map[string]int32{"promptTokenCount": u.PromptTokenCount, "candidatesTokenCount": u.CandidatesTokenCount,
				"cachedContentTokenCount": u.CachedContentTokenCount, "thoughtsTokenCount": u.ThoughtsTokenCount} {
				if v != 0 {
					out.Usage[k] = int64(v)
				}
			}
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
			return
		}
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, p := range cand.Content.Parts {
				if p != nil && !p.Thought {
					out.Text += p.Text
				}
			}
		}
		if cand.FinishReason != "" {
			out.Wire, out.Terminal = string(cand.FinishReason), true
		}
		if cand.FinishMessage != "" {
			out.Explanation = cand.FinishMessage
		}
	}
	if !r.Stream {
		resp, err := c.Models.GenerateContent(ctx, g.protocol().defaultModel(), contents, cfg)
		if err != nil {
			return out, err
		}
		take(resp)
	} else {
		for resp, err := range c.Models.GenerateContentStream(ctx, g.protocol().defaultModel(), contents, cfg) {
			if err != nil {
				return out, err
			}
			take(resp)
		}
	}
	out.Stop = normaliseStop(g.protocol(), out.Wire)
	if strings.HasPrefix(out.Wire, "blocked:") {
		out.Stop = "content_filter"
	}
	return out, nil
}
