package caddytest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// enforceDialect returns every rule of the OpenAI-compatible server
// behind dialect name that body, a Chat Completions request, breaks, each
// in the words of that server's own error. The Chat mock is OpenAI's; a
// test that routes it a dialect site's requests installs this as the
// mock's check, so that the server's departures from OpenAI are held as
// the server holds them:
//
//   - Mistral: no user message right after a tool message ("Unexpected
//     role 'user' after role 'tool'", code 3230), no max_completion_tokens
//     or store (422 extra_forbidden), tool-call ids of nine letters and
//     digits, reasoning_effort only on the models that take it, with their
//     values;
//   - DeepSeek: no developer role; in thinking mode every assistant
//     message of a turn that made tool calls carries reasoning_content;
//   - OpenRouter: several of its models reject the developer role;
//   - Groq: reasoning_effort only on reasoning models, with their values
//     (qwen3 takes none and default).
func enforceDialect(name string, body []byte) []string {
	root := gjson.ParseBytes(body)
	model := root.Get("model").String()
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	msgs := root.Get("messages").Array()
	developer := func(text string) {
		for _, m := range msgs {
			if m.Get("role").String() == "developer" {
				bad("%s", text)
				return
			}
		}
	}
	effort := root.Get("reasoning_effort")
	r := rules.Builtin().Lookup(name, model)
	if r == nil {
		r = &rules.Rule{}
	}
	accepted := func() []string {
		if r.EffortOn == "" {
			return r.Efforts
		}
		return []string{"none", r.EffortOn}
	}
	switch name {
	case "mistral":
		for i := 1; i < len(msgs); i++ {
			prev, cur := msgs[i-1].Get("role").String(), msgs[i].Get("role").String()
			if prev == "tool" && cur == "user" {
				bad("Unexpected role 'user' after role 'tool'")
			}
		}
		for _, f := range []string{"max_completion_tokens", "store", "stream_options"} {
			if root.Get(f).Exists() {
				bad("%s: Extra inputs are not permitted", f)
			}
		}
		for _, m := range msgs {
			for _, c := range m.Get("tool_calls").Array() {
				if id := c.Get("id").String(); !isAlnum9(id) {
					bad("Tool call id was %s but must be a-z, A-Z, 0-9, with a length of 9.", id)
				}
			}
		}
		if effort.Exists() {
			if r.Reasoning != rules.ReasoningEffort {
				bad("reasoning_effort: Extra inputs are not permitted")
			} else if !slices.Contains(accepted(), effort.String()) {
				bad("reasoning_effort: Input should be %s", strings.Join(accepted(), " or "))
			}
		}
	case "deepseek":
		developer("Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `developer`, expected one of `system`, `user`, `assistant`, `tool`")
		toolTurn := false
		for i, m := range msgs {
			switch m.Get("role").String() {
			case "user":
				// A user message starts a turn; the calls of the next
				// assistant messages decide whether it is a tool turn.
				toolTurn = turnHasCalls(msgs[i+1:])
			case "assistant":
				if toolTurn && !m.Get("reasoning_content").Exists() {
					bad("Missing `reasoning_content` field in the assistant message at message index %d", i)
				}
			}
		}
		// DeepSeek V4 thinks unless thinking.type is disabled, and refuses a
		// forced tool choice while it thinks.
		tc := root.Get("tool_choice")
		forced := tc.String() == "required" || tc.Get("type").String() == "function"
		if r.ThinkingOff == rules.ThinkingOffDisabled && forced && root.Get("thinking.type").String() != "disabled" {
			bad("Thinking mode does not support this tool_choice")
		}
	case "xai":
		if effort.Exists() {
			if r.Reasoning != rules.ReasoningEffort {
				bad("Model %s does not support parameter reasoningEffort.", model)
			} else if !slices.Contains(r.Efforts, effort.String()) {
				bad("Invalid reasoning effort %q for model %s. Supported values are: %s.", effort.String(), model, strings.Join(r.Efforts, ", "))
			}
		}
	case "openrouter":
		developer("developer is not one of ['system', 'assistant', 'user', 'tool', 'function']")
	case "groq":
		if effort.Exists() {
			if r.Reasoning != rules.ReasoningEffort {
				bad("`reasoning_effort` is not supported with this model")
			} else if !slices.Contains(accepted(), effort.String()) {
				bad("`reasoning_effort` must be one of %s", strings.Join(accepted(), ", "))
			}
		}
	}
	return problems
}

// turnHasCalls reports whether the turn that msgs (Chat messages) start
// in, up to the next user message, has an assistant message with tool
// calls.
func turnHasCalls(msgs []gjson.Result) bool {
	for _, m := range msgs {
		switch m.Get("role").String() {
		case "user":
			return false
		case "assistant":
			if len(m.Get("tool_calls").Array()) > 0 {
				return true
			}
		}
	}
	return false
}

// isAlnum9 reports whether id is nine letters and digits, the only
// tool-call id Mistral takes.
func isAlnum9(id string) bool {
	if len(id) != 9 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// vertexHeaderBetas are the anthropic-beta header values the Vertex mock
// takes: the ones Claude Code's own Vertex mode sends, and context
// management.
var vertexHeaderBetas = map[string]bool{
	"claude-code-20250219": true, "interleaved-thinking-2025-05-14": true, "context-management-2025-06-27": true,
	"tool-search-tool-2025-10-19": true, "web-search-2025-03-05": true,
}

// validateVertexBetas holds a Vertex Claude request's betas to Vertex's
// rules: header values it does not carry are a 400 ("Unexpected value(s)
// `…` for the `anthropic-beta` header"), among them the 1M-token context,
// which Vertex takes only in the body's anthropic_beta (BerriAI/litellm#31607).
func validateVertexBetas(h http.Header, root gjson.Result) []string {
	var problems []string
	for _, v := range h.Values("Anthropic-Beta") {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" && !vertexHeaderBetas[b] {
				problems = append(problems, "Unexpected value(s) `"+b+"` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header.")
			}
		}
	}
	for _, b := range root.Get("anthropic_beta").Array() {
		if b.String() != "context-1m-2025-08-07" {
			problems = append(problems, "anthropic_beta: unexpected value "+b.Raw)
		}
	}
	return problems
}
