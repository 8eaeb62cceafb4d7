package caddytest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
)

// This file gives the Converse client its tool, reasoning and probe side:
// tool conversations with typed tool specifications, an agent
// conversation that replays each turn's message as the SDK returned it,
// and probes with Claude's own settings in additionalModelRequestFields.

// converseCall sends one Converse request, streamed or not, and returns
// what the client made of the answer.
func converseCall(ctx context.Context, base string, in *bedrockruntime.ConverseInput, stream bool) (converseAnswerOf, error) {
	c := newBedrockRuntime(base, streamOptions{}.httpClient())
	if !stream {
		out, err := c.Converse(ctx, in)
		if err != nil {
			return converseAnswerOf{}, err
		}
		return converseOutput(out), nil
	}
	out, err := c.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId: in.ModelId, Messages: in.Messages, System: in.System, InferenceConfig: in.InferenceConfig,
		ToolConfig: in.ToolConfig, AdditionalModelRequestFields: in.AdditionalModelRequestFields,
	})
	if err != nil {
		return converseAnswerOf{}, err
	}
	var a converseAnswerOf
	err = a.read(out, nil)
	return a, err
}

// converseTools is defs as a Converse tool configuration.
func converseTools(defs []toolDef) *types.ToolConfiguration {
	if len(defs) == 0 {
		return nil
	}
	tc := &types.ToolConfiguration{}
	for _, d := range defs {
		spec := types.ToolSpecification{Name: aws.String(d.Name),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(d.Schema)}}
		if d.Description != "" {
			spec.Description = aws.String(d.Description)
		}
		tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: spec})
	}
	return tc
}

// toolTurn sends conv's tools as tool specifications and its history as
// Converse blocks (a tool message's results merged into one user message,
// as Converse wants them), and reads the calls of the answer.
func (c converseClient) toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error) {
	var msgs []types.Message
	var results []types.ContentBlock
	flush := func() {
		if len(results) > 0 {
			msgs = append(msgs, types.Message{Role: types.ConversationRoleUser, Content: results})
			results = nil
		}
	}
	for _, m := range conv.Msgs {
		if m.Role != "tool" {
			flush()
		}
		switch m.Role {
		case "user":
			blocks := []types.ContentBlock{&types.ContentBlockMemberText{Value: m.Text}}
			if m.Image != nil {
				blocks = append(blocks, &types.ContentBlockMemberImage{Value: types.ImageBlock{
					Format: types.ImageFormat(strings.TrimPrefix(m.ImageMIME, "image/")), Source: &types.ImageSourceMemberBytes{Value: m.Image}}})
			}
			msgs = append(msgs, types.Message{Role: types.ConversationRoleUser, Content: blocks})
		case "assistant":
			var blocks []types.ContentBlock
			for _, tc := range m.Calls {
				var args any
				if err := json.Unmarshal([]byte(tc.Args), &args); err != nil {
					return toolOutcome{}, fmt.Errorf("call %s: arguments %q: %w", tc.Name, tc.Args, err)
				}
				blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
					ToolUseId: aws.String(tc.ID), Name: aws.String(tc.Name), Input: document.NewLazyDocument(args)}})
			}
			msgs = append(msgs, types.Message{Role: types.ConversationRoleAssistant, Content: blocks})
		case "tool":
			results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: aws.String(m.CallID),
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: m.Text}}}})
		}
	}
	flush()
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(conv.Model), Messages: msgs, ToolConfig: converseTools(conv.Tools),
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(int32(conv.MaxTokens)), Temperature: aws.Float32(0.5), TopP: aws.Float32(0.5)}}
	a, err := converseCall(ctx, base, in, stream)
	out := toolOutcome{Text: a.text(), Calls: a.calls(), StreamProblems: a.problems, Terminal: a.terminal}
	if a.stopped {
		out.Stop = normaliseStop(bedrockConverse, string(a.stop))
	}
	if stream {
		out.ArgFragments = a.fragments
	}
	return out, err
}

// agentReplay replays turn 1's message as the SDK returned it (or as the
// stream's blocks accumulate), reasoning and tool use included, as
// Converse agents keep their history.
func (c converseClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	tools := converseTools([]toolDef{{Name: "get_weather", Schema: rzToolSchema}})
	msgs := []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: rzPrompt}}}}
	in := func() *bedrockruntime.ConverseInput {
		return &bedrockruntime.ConverseInput{ModelId: aws.String(bedrockConverse.defaultModel()), Messages: msgs, ToolConfig: tools,
			InferenceConfig:              &types.InferenceConfiguration{MaxTokens: aws.Int32(20000)},
			AdditionalModelRequestFields: document.NewLazyDocument(map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 16000}})}
	}
	var out replayOutcome
	a, err := converseCall(ctx, base, in(), o.stream)
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	out.Stop1, out.Calls, out.Reasoning = normaliseStop(bedrockConverse, string(a.stop)), a.calls(), a.reasoning()
	msgs = append(msgs, types.Message{Role: types.ConversationRoleAssistant, Content: a.blocks})
	var results []types.ContentBlock
	for _, call := range out.Calls {
		results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: aws.String(call.ID),
			Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: rzResult}}}})
	}
	msgs = append(msgs, types.Message{Role: types.ConversationRoleUser, Content: results})
	if o.between != nil {
		o.between()
	}
	a, err = converseCall(ctx, base, in(), o.stream)
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	out.Text2, out.Stop2 = a.text(), normaliseStop(bedrockConverse, string(a.stop))
	return out, nil
}

// probe sends r; its Extra members go in additionalModelRequestFields,
// where Converse takes the model vendor's own settings (Claude's
// thinking).
func (c converseClient) probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error) {
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = 1024
	}
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(bedrockConverse.defaultModel()),
		Messages:        []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Tell me something."}}}},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(int32(maxTokens))}}
	if len(r.Extra) > 0 {
		in.AdditionalModelRequestFields = document.NewLazyDocument(r.Extra)
	}
	a, err := converseCall(ctx, base, in, r.Stream)
	if err != nil {
		return probeOutcome{}, err
	}
	out := probeOutcome{Text: a.text(), Wire: string(a.stop), Usage: a.usageMap(), Terminal: a.terminal}
	out.Stop = normaliseStop(bedrockConverse, out.Wire)
	return out, nil
}
