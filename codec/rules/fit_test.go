package rules

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

func optI(v int64) codec.OptInt     { return codec.OptInt{Value: v, Set: true} }
func optF(v float64) codec.OptFloat { return codec.OptFloat{Value: v, Set: true} }

func toolLoop(signed bool) []codec.Message {
	call := []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "Bash", Arguments: "{}"}}
	if signed {
		call = append([]codec.Part{{Type: codec.PartReasoning, Text: "think", Signature: "sig", Origin: mapping.FamilyAnthropic}}, call...)
	}
	return []codec.Message{
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}},
		{Role: codec.RoleAssistant, Parts: call},
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "call_1", Content: []codec.Part{{Type: codec.PartText, Text: "ok"}}}}},
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name     string
		protocol codec.Protocol
		model    string
		req      codec.Request
		// check inspects the fitted request.
		check func(t *testing.T, r *codec.Request)
		// adjusted is the Llmbridge-Adjusted header text, joined by "; ".
		adjusted string
		target   codec.Target
		// classes, when set, are the adjustments' classes.
		classes []Class
		// location is the upstream's vertex_location.
		location string
	}{
		{
			name: "claude code budget over gemini 2.5 flash's range", protocol: codec.Gemini, model: "gemini-2.5-flash",
			req:      codec.Request{MaxTokens: optI(32000), Reasoning: codec.Reasoning{Budget: optI(31999)}},
			check:    func(t *testing.T, r *codec.Request) { wantInt(t, "budget", r.Reasoning.Budget.Value, 24576) },
			adjusted: "thinkingConfig.thinkingBudget=24576 (a budget of 31999 is outside gemini-2.5-flash's range)",
		},
		{
			name: "budget in range needs nothing", protocol: codec.Gemini, model: "gemini-2.5-flash",
			req: codec.Request{Reasoning: codec.Reasoning{Budget: optI(8192)}},
		},
		{
			name: "gemini 2.5 pro cannot turn thinking off", protocol: codec.Vertex, model: "gemini-2.5-pro",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			check:    func(t *testing.T, r *codec.Request) { wantInt(t, "budget", r.Reasoning.Budget.Value, 128) },
			adjusted: "thinkingConfig.thinkingBudget=128 (thinking cannot be turned off on gemini-2.5-pro)",
		},
		{
			name: "flash-lite budget below its minimum", protocol: codec.Gemini, model: "gemini-2.5-flash-lite-preview-06-17",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(100)}},
			adjusted: "thinkingConfig.thinkingBudget=512 (a budget of 100 is outside gemini-2.5-flash-lite-preview-06-17's range)",
		},
		{
			name: "claude code thinking toward gpt-5 becomes high", protocol: codec.OpenAIChat, model: "gpt-5",
			req: codec.Request{Reasoning: codec.Reasoning{Budget: optI(31999)}},
			check: func(t *testing.T, r *codec.Request) {
				if r.Reasoning.Effort != mapping.EffortHigh || r.Reasoning.Budget.Set {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
			adjusted: "reasoning_effort=high (xhigh not accepted by gpt-5)",
		},
		{
			name: "xhigh toward o3 over responses", protocol: codec.OpenAIResponses, model: "o3-2025-04-16",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh}},
			adjusted: "reasoning.effort=high (xhigh not accepted by o3-2025-04-16)",
		},
		{
			name: "none toward gpt-5 is its lowest effort", protocol: codec.OpenAIChat, model: "gpt-5-mini",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			adjusted: "reasoning_effort=minimal (none not accepted by gpt-5-mini)",
		},
		{
			name: "max toward gpt-5.2 is xhigh", protocol: codec.OpenAIResponses, model: "gpt-5.2",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortMax}},
			adjusted: "reasoning.effort=xhigh (max not accepted by gpt-5.2)",
		},
		{
			name: "thinking toward gpt-4.1 is not sent", protocol: codec.OpenAIChat, model: "gpt-4.1",
			req: codec.Request{MaxTokens: optI(32000), Reasoning: codec.Reasoning{Budget: optI(31999), Summary: "auto"}},
			check: func(t *testing.T, r *codec.Request) {
				if !r.Reasoning.IsZero() {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
			adjusted: "reasoning_effort removed (gpt-4.1 is not a reasoning model)",
		},
		{
			name: "gpt-4o output cap", protocol: codec.OpenAIChat, model: "gpt-4o",
			req:      codec.Request{MaxTokens: optI(32000)},
			adjusted: "max_completion_tokens=16384 (32000 is over gpt-4o's output limit)",
		},
		{
			name: "sampling toward a reasoning model", protocol: codec.OpenAIResponses, model: "gpt-5",
			req:      codec.Request{Temperature: optF(0.2), TopP: optF(1), PresencePenalty: optF(0.5)},
			adjusted: "temperature removed (gpt-5 samples only with its default settings); presence_penalty removed (presence_penalty not accepted by gpt-5)",
		},
		{
			name: "gpt-5.1 takes sampling with effort none", protocol: codec.OpenAIChat, model: "gpt-5.1",
			req: codec.Request{Temperature: optF(0.2)},
		},
		{
			name: "stop sequences toward o3 change the answer", protocol: codec.OpenAIChat, model: "o3",
			req:      codec.Request{StopSequences: []string{"END"}},
			adjusted: "stop removed (stop sequences not accepted by o3)",
		},
		{
			name: "gemini cli sampling toward claude sonnet 4.5 with thinking", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-5-20250929",
			req: codec.Request{Temperature: optF(0), TopP: optF(0.95), TopK: optI(64), Reasoning: codec.Reasoning{Budget: optI(8192)},
				Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}}}},
			adjusted: "top_p removed (claude-sonnet-4-5-20250929 takes temperature or top_p, not both); temperature removed (thinking takes only the default temperature); top_k removed (thinking does not take top_k)",
		},
		{
			name: "budget thinking toward opus 4.7 becomes adaptive", protocol: codec.VertexAnthropic, model: "claude-opus-4-7",
			req: codec.Request{MaxTokens: optI(32000), Reasoning: codec.Reasoning{Budget: optI(31999)}, Temperature: optF(0.5)},
			check: func(t *testing.T, r *codec.Request) {
				if !r.Reasoning.Adaptive || r.Reasoning.Budget.Set || r.Reasoning.Effort != mapping.EffortXHigh {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
			adjusted: "thinking=adaptive, output_config.effort=xhigh (thinking with a budget not accepted by claude-opus-4-7); temperature removed (claude-opus-4-7 samples only with its default settings)",
		},
		{
			name: "thinking off toward opus 4.7 leaves thinking out", protocol: codec.AnthropicMessages, model: "claude-opus-4-7",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			adjusted: "thinking removed (thinking.type disabled not accepted by claude-opus-4-7)",
		},
		{
			name: "effort toward sonnet 4.5 is a budget, output effort removed", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			req: codec.Request{Reasoning: codec.Reasoning{Adaptive: true, Effort: mapping.EffortMedium}},
			check: func(t *testing.T, r *codec.Request) {
				if r.Reasoning.Adaptive || r.Reasoning.Budget.Value != 8192 || r.Reasoning.Effort != mapping.EffortUnset {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
			adjusted: "thinking.budget_tokens=8192 (adaptive thinking not accepted by claude-sonnet-4-5)",
		},
		{
			name: "opus 4.1 cap applies to the implied max_tokens", protocol: codec.AnthropicMessages, model: "claude-opus-4-1",
			req:   codec.Request{Reasoning: codec.Reasoning{Budget: optI(31999)}},
			check: func(t *testing.T, r *codec.Request) { wantInt(t, "max_tokens", r.MaxTokens.Value, 32000) },
		},
		{
			name: "unsigned tool loop turns thinking off", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			req: codec.Request{Reasoning: codec.Reasoning{Budget: optI(2048)}, Messages: toolLoop(false)},
			check: func(t *testing.T, r *codec.Request) {
				if !r.Reasoning.IsZero() {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
			adjusted: "thinking removed (the open tool loop's assistant turn has no signed thinking block to continue from)",
		},
		{
			name: "signed tool loop keeps thinking", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			req: codec.Request{Reasoning: codec.Reasoning{Budget: optI(2048)}, Messages: toolLoop(true)},
		},
		{
			name: "forced tool choice turns thinking off", protocol: codec.AnthropicMessages, model: "claude-haiku-4-5",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(2048)}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
			adjusted: "thinking removed (thinking is not accepted with a forced tool_choice)",
		},
		{
			name: "always-thinking claude drops the forced tool choice", protocol: codec.AnthropicMessages, model: "claude-sonnet-5-5",
			req:      codec.Request{ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "Bash"}},
			adjusted: "tool_choice removed (claude-sonnet-5-5 always thinks and takes no forced tool_choice)",
		},
		{
			name: "prefill toward sonnet 4.6", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-6",
			req: codec.Request{Messages: []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "{"}}},
			}},
			check:    func(t *testing.T, r *codec.Request) { wantInt(t, "messages", int64(len(r.Messages)), 1) },
			adjusted: "messages[1] removed (a conversation that ends with an assistant message (prefill) not accepted by claude-sonnet-4-6)",
		},
		{
			name: "gemini 3 takes a level", protocol: codec.Gemini, model: "gemini-3-pro-preview",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortMedium}},
			target:   codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			adjusted: "thinkingConfig.thinkingLevel=low (medium not accepted by gemini-3-pro-preview)",
		},
		{
			name: "gemini 3 flash from a budget", protocol: codec.Gemini, model: "gemini-3-flash-preview",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(8192)}},
			target:   codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			adjusted: "thinkingConfig.thinkingLevel=medium (a thinking budget (8192) not accepted by gemini-3-flash-preview; the nearest thinking level)",
			check: func(t *testing.T, r *codec.Request) {
				if r.Reasoning.Effort != mapping.EffortMedium || r.Reasoning.Budget.Set {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
		},
		{
			name: "deepseek reasoner takes no effort", protocol: codec.OpenAIChat, model: "deepseek-reasoner",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}},
			adjusted: "reasoning_effort removed (deepseek-reasoner always reasons and takes no reasoning setting)",
		},
		{
			name: "gemini 3 adaptive is the model's dynamic default", protocol: codec.Gemini, model: "gemini-3-pro-preview",
			req:    codec.Request{Reasoning: codec.Reasoning{Adaptive: true}},
			target: codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
		},
		{
			name: "gemini 3 cannot turn thinking off", protocol: codec.Vertex, model: "gemini-3-flash-preview",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(0)}},
			target:   codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			adjusted: "thinkingConfig.thinkingLevel=minimal (thinking cannot be turned off on gemini-3-flash-preview)",
		},
		{
			name: "gemini 2.5 effort becomes a budget in range", protocol: codec.Gemini, model: "gemini-2.5-pro",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortMax}},
			check:    func(t *testing.T, r *codec.Request) { wantInt(t, "budget", r.Reasoning.Budget.Value, 32768) },
			adjusted: "thinkingConfig.thinkingBudget=32768 (a budget of 63999 is outside gemini-2.5-pro's range)",
		},
		{
			name: "a small gemini budget toward claude", protocol: codec.AnthropicMessages, model: "claude-opus-4-5",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(500), Effort: mapping.EffortMax}},
			adjusted: "thinking.budget_tokens=1024 (a budget of 500 is outside claude-opus-4-5's range); output_config.effort=high (effort max not accepted by claude-opus-4-5)",
		},
		{
			name: "output effort toward sonnet 4.5 is removed", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(4096), Effort: mapping.EffortHigh}},
			adjusted: "output_config.effort removed (effort high not accepted by claude-sonnet-4-5)",
		},
		{
			name: "adaptive effort toward opus 4.7 moves into its set", protocol: codec.AnthropicMessages, model: "claude-opus-4-7",
			req:      codec.Request{Reasoning: codec.Reasoning{Adaptive: true, Effort: mapping.EffortMinimal}},
			adjusted: "output_config.effort=low (effort minimal not accepted by claude-opus-4-7)",
		},
		{
			name: "adaptive without effort toward opus 4.7", protocol: codec.AnthropicMessages, model: "claude-opus-4-7",
			req: codec.Request{Reasoning: codec.Reasoning{Budget: optI(-1)}},
			check: func(t *testing.T, r *codec.Request) {
				if !r.Reasoning.Adaptive || r.Reasoning.Budget.Set || r.Reasoning.Effort != mapping.EffortUnset {
					t.Errorf("reasoning = %+v", r.Reasoning)
				}
			},
		},
		{
			name: "always-thinking claude: thinking off and an unsigned loop", protocol: codec.AnthropicMessages, model: "claude-opus-5-5",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}, Messages: toolLoop(false)},
			adjusted: "thinking removed (thinking cannot be turned off on claude-opus-5-5)",
		},
		{
			name: "always-thinking claude: thinking on in an unsigned loop", protocol: codec.AnthropicMessages, model: "claude-opus-5-5",
			req: codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}, Messages: toolLoop(false)},
			adjusted: "thinking=adaptive, output_config.effort=high (thinking with a budget not accepted by claude-opus-5-5); " +
				"thinking removed (the open tool loop's assistant turn has no signed thinking block to continue from)",
		},
		{
			name: "anthropic temperature range and top_p with thinking", protocol: codec.AnthropicMessages, model: "claude-opus-4-1",
			req:      codec.Request{Temperature: optF(1.5), TopP: optF(0.5), Reasoning: codec.Reasoning{Budget: optI(2048)}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}},
			adjusted: "temperature=1 (temperature ranges up to 1); top_p removed (claude-opus-4-1 takes temperature or top_p, not both)",
		},
		{
			name: "thinking with top_p out of range", protocol: codec.AnthropicMessages, model: "claude-opus-4-0",
			req:      codec.Request{TopP: optF(0.5), Reasoning: codec.Reasoning{Budget: optI(2048)}},
			adjusted: "top_p removed (thinking takes top_p only from 0.95 to 1)",
		},
		{
			name: "prefill turns thinking off", protocol: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			req: codec.Request{Reasoning: codec.Reasoning{Budget: optI(2048)}, Messages: []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "{"}}},
			}},
			adjusted: "thinking removed (thinking is not accepted when the conversation ends with an assistant message)",
		},
		{
			name: "fixed sampling toward opus 4.7 removes top_p and top_k", protocol: codec.AnthropicMessages, model: "claude-opus-4-7",
			req:      codec.Request{TopP: optF(0.9), TopK: optI(5), FrequencyPenalty: optF(1)},
			adjusted: "top_p removed (claude-opus-4-7 samples only with its default settings); top_k removed (claude-opus-4-7 samples only with its default settings)",
		},
		{
			name: "gpt-5.1 with effort high fixes sampling", protocol: codec.OpenAIChat, model: "gpt-5.1",
			req:      codec.Request{Temperature: optF(3), FrequencyPenalty: optF(1), Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}},
			adjusted: "temperature=2 (temperature ranges up to 2); temperature removed (gpt-5.1 samples only with its default settings); frequency_penalty removed (frequency_penalty not accepted by gpt-5.1)",
		},
		{
			name: "a budget above the capped max_tokens is lowered", protocol: codec.AnthropicMessages, model: "claude-opus-4-1",
			req: codec.Request{MaxTokens: optI(64000), Reasoning: codec.Reasoning{Budget: optI(40000)}},
			adjusted: "max_tokens=32000 (64000 is over claude-opus-4-1's output limit); " +
				"thinking.budget_tokens=31999 (the budget must stay below max_tokens)",
		},
		{
			name: "no room for thinking turns it off", protocol: codec.AnthropicMessages, model: "claude-haiku-4-5",
			req:      codec.Request{MaxTokens: optI(1000), Reasoning: codec.Reasoning{Budget: optI(2048)}},
			adjusted: "thinking removed (max_tokens leaves no room for the smallest thinking budget)",
		},
		{
			name: "Claude on Bedrock Converse follows Anthropic's rules, named in Converse's fields", protocol: codec.Bedrock,
			model: "us.anthropic.claude-opus-4-1-20250805-v1:0",
			req:   codec.Request{MaxTokens: optI(64000), Reasoning: codec.Reasoning{Budget: optI(40000)}},
			adjusted: "inferenceConfig.maxTokens=32000 (64000 is over us.anthropic.claude-opus-4-1-20250805-v1:0's output limit); " +
				"additionalModelRequestFields.thinking.budget_tokens=31999 (the budget must stay below max_tokens)",
		},
		{
			name: "Claude on Bedrock InvokeModel follows Anthropic's rules", protocol: codec.BedrockAnthropic,
			model:    "anthropic.claude-opus-4-7-v1:0",
			req:      codec.Request{TopP: optF(0.9), TopK: optI(5)},
			adjusted: "top_p removed (anthropic.claude-opus-4-7-v1:0 samples only with its default settings); top_k removed (anthropic.claude-opus-4-7-v1:0 samples only with its default settings)",
		},
		{
			name: "a model of another vendor on Bedrock is sent unchanged", protocol: codec.Bedrock, model: "amazon.nova-pro-v1:0",
			req: codec.Request{MaxTokens: optI(1 << 40), Temperature: optF(0.3), TopK: optI(5)},
		},
		{
			name: "gpt-5.6 with tools and no effort gets none (its default medium breaks the Chat tools rule)", protocol: codec.OpenAIChat, model: "gpt-5.6",
			req:      codec.Request{Tools: []codec.Tool{{Name: "Bash"}}},
			check:    func(t *testing.T, r *codec.Request) { wantEffort(t, r, mapping.EffortNone) },
			adjusted: "reasoning_effort=none (function tools with reasoning effort medium are not accepted by gpt-5.6 on Chat Completions; upstream openai-responses takes both)",
			classes:  []Class{ClassAdjust},
		},
		{
			name: "gpt-5.5 with tools and thinking on: a change, naming upstream openai-responses", protocol: codec.OpenAIChat, model: "gpt-5.5",
			req:      codec.Request{Tools: []codec.Tool{{Name: "Bash"}}, Reasoning: codec.Reasoning{Budget: optI(31999)}},
			check:    func(t *testing.T, r *codec.Request) { wantEffort(t, r, mapping.EffortNone) },
			adjusted: "reasoning_effort=none (function tools with reasoning effort xhigh are not accepted by gpt-5.5 on Chat Completions; upstream openai-responses takes both)",
			classes:  []Class{ClassChange},
		},
		{
			name: "gpt-5.4 with tools and no effort needs nothing (its default is none)", protocol: codec.OpenAIChat, model: "gpt-5.4",
			req: codec.Request{Tools: []codec.Tool{{Name: "Bash"}}, Temperature: optF(0.2)},
		},
		{
			name: "gpt-5.4 tools with effort are fine on Responses", protocol: codec.OpenAIResponses, model: "gpt-5.4",
			req: codec.Request{Tools: []codec.Tool{{Name: "Bash"}}, Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}},
		},
		{
			name: "gpt-6-astra takes function tools only on Responses", protocol: codec.OpenAIChat, model: "gpt-6-astra",
			req:      codec.Request{Tools: []codec.Tool{{Name: "Bash"}}},
			adjusted: "tools removed (gpt-6-astra takes function tools only through the Responses API (upstream openai-responses), at any reasoning effort)",
			classes:  []Class{ClassRefuse},
		},
		{
			name: "gpt-5.5's default effort medium fixes sampling", protocol: codec.OpenAIResponses, model: "gpt-5.5",
			req:      codec.Request{Temperature: optF(0.2)},
			adjusted: "temperature removed (gpt-5.5 samples only with its default settings)",
		},
		{
			name: "gpt-5.5 at effort none takes temperature", protocol: codec.OpenAIResponses, model: "gpt-5.5",
			req: codec.Request{Temperature: optF(0.2), Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
		},
		{
			name: "gemini 4 takes no budget: its nearest level, reported", protocol: codec.Gemini, model: "gemini-4-argon",
			req:      codec.Request{Reasoning: codec.Reasoning{Budget: optI(31999)}},
			target:   codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			adjusted: "thinkingConfig.thinkingLevel=high (a thinking budget (31999) not accepted by gemini-4-argon; the nearest thinking level)",
		},
		{
			name: "gemini 4 neon takes level xhigh", protocol: codec.Gemini, model: "gemini-4-neon",
			req:    codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortMax}},
			target: codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			check: func(t *testing.T, r *codec.Request) {
				if r.Reasoning.Effort != mapping.EffortXHigh {
					t.Errorf("effort = %v, want xhigh", r.Reasoning.Effort)
				}
			},
			adjusted: "thinkingConfig.thinkingLevel=xhigh (max not accepted by gemini-4-neon)",
		},
		{
			name: "gemini 4 neon refuses penalties", protocol: codec.Gemini, model: "gemini-4-neon-preview",
			req:      codec.Request{PresencePenalty: optF(0.5)},
			target:   codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			adjusted: "presencePenalty removed (presence_penalty not accepted by gemini-4-neon-preview)",
		},
		{
			name: "gemini 4 on vertex at us-central1 is refused", protocol: codec.Vertex, model: "gemini-4-hydrogen", location: "us-central1",
			target:   codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
			adjusted: `vertex_location removed (gemini-4-hydrogen is served on Vertex AI only at the locations global, us, eu, not "us-central1")`,
			classes:  []Class{ClassRefuse},
		},
		{
			name: "gemini 4 on vertex at global", protocol: codec.Vertex, model: "gemini-4-hydrogen", location: "global",
			target: codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
		},
		{
			name: "a codex model toward chat completions is refused", protocol: codec.OpenAIChat, model: "gpt-5.3-codex",
			adjusted: "model removed (gpt-5.3-codex is served only by the Responses API, not Chat Completions ('This is not a chat model'); upstream openai-responses serves it)",
			classes:  []Class{ClassRefuse},
		},
		{
			name: "a codex model toward responses", protocol: codec.OpenAIResponses, model: "gpt-5.3-codex",
		},
		{
			name: "deepseek v4 with a forced tool choice: thinking disabled", protocol: codec.OpenAIChat, model: "deepseek-v4-pro",
			req: codec.Request{ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}, Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}},
			check: func(t *testing.T, r *codec.Request) {
				if r.Reasoning.Effort != mapping.EffortNone {
					t.Errorf("effort = %v, want none", r.Reasoning.Effort)
				}
			},
			target:   codec.Target{ThinkingTypeDisabled: true},
			adjusted: "thinking=disabled (thinking is not accepted with a forced tool_choice by deepseek-v4-pro)",
			classes:  []Class{ClassAdjust},
		},
		{
			name: "deepseek v4 with reasoning off: thinking disabled", protocol: codec.OpenAIChat, model: "deepseek-v4-flash",
			req: codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			check: func(t *testing.T, r *codec.Request) {
				if r.Reasoning.Effort != mapping.EffortNone {
					t.Errorf("effort = %v, want none", r.Reasoning.Effort)
				}
			},
			target: codec.Target{ThinkingTypeDisabled: true},
		},
		{
			name: "gpt-5.3-chat-latest takes medium only", protocol: codec.OpenAIChat, model: "gpt-5.3-chat-latest",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}},
			adjusted: "reasoning_effort=medium (high not accepted by gpt-5.3-chat-latest)",
		},
		{
			name: "gpt-5.4-pro: low becomes medium", protocol: codec.OpenAIResponses, model: "gpt-5.4-pro",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortLow}},
			adjusted: "reasoning.effort=medium (low not accepted by gpt-5.4-pro)",
		},
		{
			name: "sonnet 5 with a forced tool choice gets thinking disabled (it thinks by default)", protocol: codec.AnthropicMessages, model: "claude-sonnet-5",
			req:      codec.Request{Tools: []codec.Tool{{Name: "Bash"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
			check:    func(t *testing.T, r *codec.Request) { wantEffort(t, r, mapping.EffortNone) },
			adjusted: "thinking=disabled (thinking is not accepted with a forced tool_choice)",
		},
		{
			name: "opus 5 in an unsigned tool loop gets thinking disabled", protocol: codec.VertexAnthropic, model: "claude-opus-5@20261001",
			req:      codec.Request{Messages: toolLoop(false)},
			check:    func(t *testing.T, r *codec.Request) { wantEffort(t, r, mapping.EffortNone) },
			adjusted: "thinking=disabled (the open tool loop's assistant turn has no signed thinking block to continue from)",
		},
		{
			name: "sonnet 5: thinking off is sent as disabled", protocol: codec.AnthropicMessages, model: "claude-sonnet-5",
			req:   codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			check: func(t *testing.T, r *codec.Request) { wantEffort(t, r, mapping.EffortNone) },
		},
		{
			name: "opus 4.7: thinking off is left out", protocol: codec.AnthropicMessages, model: "claude-opus-4-7",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			check:    func(t *testing.T, r *codec.Request) { wantEffort(t, r, mapping.EffortUnset) },
			adjusted: "thinking removed (thinking.type disabled not accepted by claude-opus-4-7)",
		},
		{
			name: "gemini 3.5 flash-lite: penalties and prefill", protocol: codec.Gemini, model: "gemini-3.5-flash-lite",
			req: codec.Request{PresencePenalty: optF(0.5), FrequencyPenalty: optF(0.5), Messages: []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "{"}}},
			}},
			adjusted: "presencePenalty removed (presence_penalty not accepted by gemini-3.5-flash-lite); frequencyPenalty removed (frequency_penalty not accepted by gemini-3.5-flash-lite); " +
				"contents[1] removed (a conversation that ends with an assistant message (prefill) not accepted by gemini-3.5-flash-lite)",
			target: codec.Target{ThinkingLevel: true, SignedFunctionCalls: true},
		},
		{
			name: "groq qwen3 writes every effort above none as default", protocol: codec.OpenAIChat, model: "qwen/qwen3-32b",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}},
			adjusted: "reasoning_effort=medium (high not accepted by qwen/qwen3-32b)",
			target:   codec.Target{EffortOn: "default"},
		},
		{
			name: "mistral medium 3.5 takes none or high", protocol: codec.OpenAIChat, model: "mistral-medium-2604",
			req:      codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortLow}},
			adjusted: "reasoning_effort=high (low not accepted by mistral-medium-2604)",
		},
		{
			name: "unknown model is sent unchanged", protocol: codec.OpenAIChat, model: "my-finetune",
			req: codec.Request{MaxTokens: optI(1 << 40), Temperature: optF(0.3), Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh}},
		},
	}
	tbl := Builtin()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := ProviderFor(tt.protocol, "")
			switch {
			case strings.HasPrefix(tt.model, "deepseek"):
				provider = "deepseek"
			case strings.HasPrefix(tt.model, "qwen"):
				provider = "groq"
			case strings.HasPrefix(tt.model, "mistral"):
				provider = "mistral"
			}
			req := tt.req
			adj, target := Fit(&req, tbl.Lookup(provider, tt.model), &Options{Protocol: tt.protocol, Provider: provider, Model: tt.model, Location: tt.location}, nil)
			var got []string
			for i := range adj {
				got = append(got, adj[i].String())
			}
			if s := strings.Join(got, "; "); s != tt.adjusted {
				t.Errorf("adjusted:\n got %s\nwant %s", s, tt.adjusted)
			}
			target.Cache = codec.CacheTarget{} // TestFitCacheTarget's
			if target != tt.target {
				t.Errorf("target = %+v, want %+v", target, tt.target)
			}
			if tt.check != nil {
				tt.check(t, &req)
			}
			if tt.classes != nil {
				for i := range adj {
					if i >= len(tt.classes) || adj[i].Class != tt.classes[i] {
						t.Errorf("adjustment %d: class %d, want classes %v", i, adj[i].Class, tt.classes)
					}
				}
			}
		})
	}
}

func wantEffort(t *testing.T, r *codec.Request, want mapping.Effort) {
	t.Helper()
	if r.Reasoning.Effort != want || r.Reasoning.Budget.Set || r.Reasoning.Adaptive {
		t.Errorf("reasoning = %+v, want effort %v alone", r.Reasoning, want)
	}
}

func wantInt(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}

// TestFitCacheTarget checks the prompt-cache facts Fit hands the encoder
// for a model on an upstream protocol.
func TestFitCacheTarget(t *testing.T) {
	tests := []struct {
		protocol codec.Protocol
		model    string
		want     codec.CacheTarget
	}{
		{codec.AnthropicMessages, "claude-opus-4-5-20251101", codec.CacheTarget{MinTokens: 4096}},
		{codec.AnthropicMessages, "claude-sonnet-4-5", codec.CacheTarget{MinTokens: 1024}},
		{codec.AnthropicMessages, "claude-3-7-sonnet-20250219", codec.CacheTarget{MinTokens: 1024}},
		{codec.VertexAnthropic, "claude-3-7-sonnet@20250219", codec.CacheTarget{MinTokens: 1024}},
		{codec.BedrockAnthropic, "anthropic.claude-3-7-sonnet-20250219-v1:0", codec.CacheTarget{MinTokens: 1024, FiveMinutesOnly: true}},
		{codec.Bedrock, "us.anthropic.claude-opus-4-1-20250805-v1:0", codec.CacheTarget{MinTokens: 1024, FiveMinutesOnly: true}},
		{codec.Bedrock, "global.anthropic.claude-sonnet-4-5-20250929-v1:0", codec.CacheTarget{MinTokens: 1024}},
		{codec.AnthropicMessages, "claude-unknown-9", codec.CacheTarget{MinTokens: 512}},
		{codec.OpenAIChat, "gpt-5.4", codec.CacheTarget{}},
	}
	tbl := Builtin()
	for _, tt := range tests {
		provider := ProviderFor(tt.protocol, "")
		req := codec.Request{}
		_, target := Fit(&req, tbl.Lookup(provider, tt.model), &Options{Protocol: tt.protocol, Provider: provider, Model: tt.model}, nil)
		if target.Cache != tt.want {
			t.Errorf("%s %s: cache target %+v, want %+v", tt.protocol, tt.model, target.Cache, tt.want)
		}
	}
}
