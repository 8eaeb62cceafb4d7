package caddytest

import (
	"encoding/json"
	"strconv"
	"strings"
)

// perfModel is the model every benchmark request names.
const perfModel = "perf-model"

// perfConversation is one benchmark request, independent of protocol. It is
// written out in Anthropic Messages (toward llmbridge) and in the
// equivalent OpenAI Chat Completions form (toward the plain reverse_proxy),
// so that both sites carry the same conversation.
type perfConversation struct {
	// system is the system prompt, in blocks.
	system []string
	// tools are function tools with JSON Schema parameters.
	tools []perfTool
	// turns is the history, oldest first.
	turns []perfTurn
}

// perfTool is one function tool.
type perfTool struct {
	name, description string
	schema            json.RawMessage
}

// perfTurn is one message of the history: a user text, an assistant text
// with an optional tool call, or the result of that call.
type perfTurn struct {
	// role is "user", "assistant" or "tool" (a tool result).
	role string
	text string
	// callID, callName and callArgs are an assistant's tool call, or
	// (callID only) the call a tool result answers.
	callID, callName string
	callArgs         json.RawMessage
}

// perfSize names one request body size of the benchmark.
type perfSize struct {
	name string
	conv perfConversation
}

// perfSizes are the non-streamed request bodies: about 1 KB, 5 KB and
// 90 KB in Anthropic form (the Chat form is of nearly the same size).
func perfSizes() []perfSize {
	return []perfSize{
		{"1KB", perfSmallConversation()},
		{"5KB", perfMediumConversation()},
		{"90KB", perfAgentConversation(3)},
		{"1MB", perfAgentConversation(265)},
	}
}

// perfSmallConversation is a ~1 KB request: a short system prompt and one
// user question.
func perfSmallConversation() perfConversation {
	return perfConversation{
		system: []string{"You are a helpful assistant. Answer briefly and precisely."},
		turns: []perfTurn{{role: "user", text: "Please summarise the following note in one sentence.\n" +
			strings.Repeat("The meeting moved to Thursday because the \"quarterly\" report is late. ", 11)}},
	}
}

// perfMediumConversation is a ~5 KB request: a system prompt and a
// 20-message chat whose texts hold newlines and quotes, like the codec's
// own benchmark conversation.
func perfMediumConversation() perfConversation {
	c := perfConversation{system: []string{strings.Repeat("You are a careful assistant. Follow the \"house style\".\n", 8)}}
	for i := range 20 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		c.turns = append(c.turns, perfTurn{role: role, text: "Message " + strconv.Itoa(i) + ": " +
			strings.Repeat("some words of a conversation, ", 6) + "\n\"quoted\" and more.\n"})
	}
	return c
}

// perfAgentConversation is an agent request shaped like Claude Code's: a
// 28 KB system prompt in three blocks, 12 tools with large schemas, and a
// history of steps tool calls and their 3.5 KB results: ~90 KB with 3
// steps, ~1 MB with 265.
func perfAgentConversation(steps int) perfConversation {
	var c perfConversation
	block := strings.Repeat("You are an interactive CLI tool. Follow the \"rules\" below carefully.\n", 135)
	for range 3 {
		c.system = append(c.system, block)
	}
	desc := strings.Repeat("A parameter that controls one aspect of the tool. ", 8)
	for i := range 12 {
		props := make([]string, 0, 8)
		for j := range 8 {
			props = append(props, `"p`+strconv.Itoa(j)+`":{"type":"string","description":"`+desc+`"}`)
		}
		c.tools = append(c.tools, perfTool{
			name:        "tool_" + strconv.Itoa(i),
			description: strings.Repeat("Runs an operation in the workspace and returns its output. ", 4),
			schema:      json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["p0"],"additionalProperties":false}`),
		})
	}
	result := strings.Repeat("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", 70)
	for i := range steps {
		id := "call_" + strconv.Itoa(i)
		c.turns = append(c.turns,
			perfTurn{role: "user", text: "Please look at file " + strconv.Itoa(i) + " and fix the \"bug\".\n"},
			perfTurn{role: "assistant", text: "Reading the file.", callID: id, callName: "tool_1",
				callArgs: json.RawMessage(`{"p0":"src/file` + strconv.Itoa(i) + `.go","p1":"all"}`)},
			perfTurn{role: "tool", callID: id, text: result})
	}
	c.turns = append(c.turns, perfTurn{role: "user", text: "Now run the tests and tell me what fails."})
	return c
}

// mustJSON marshals v, which the benchmark builds itself and which cannot
// fail to marshal.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// anthropicBody writes c as an Anthropic Messages request body.
func (c perfConversation) anthropicBody(stream bool) []byte {
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   string          `json:"content,omitempty"`
	}
	type message struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	type request struct {
		Model     string    `json:"model"`
		MaxTokens int       `json:"max_tokens"`
		System    []block   `json:"system,omitempty"`
		Tools     []tool    `json:"tools,omitempty"`
		Messages  []message `json:"messages"`
		Stream    bool      `json:"stream,omitempty"`
	}
	r := request{Model: perfModel, MaxTokens: 4096, Stream: stream}
	for _, s := range c.system {
		r.System = append(r.System, block{Type: "text", Text: s})
	}
	for _, t := range c.tools {
		r.Tools = append(r.Tools, tool{t.name, t.description, t.schema})
	}
	for _, t := range c.turns {
		switch t.role {
		case "tool":
			r.Messages = append(r.Messages, message{"user", []block{{Type: "tool_result", ToolUseID: t.callID, Content: t.text}}})
		case "assistant":
			m := message{"assistant", []block{{Type: "text", Text: t.text}}}
			if t.callID != "" {
				m.Content = append(m.Content, block{Type: "tool_use", ID: t.callID, Name: t.callName, Input: t.callArgs})
			}
			r.Messages = append(r.Messages, m)
		default:
			r.Messages = append(r.Messages, message{t.role, []block{{Type: "text", Text: t.text}}})
		}
	}
	return mustJSON(r)
}

// chatBody writes c as the equivalent OpenAI Chat Completions request
// body: the system blocks as text parts of one system message, tool calls
// with their arguments as a JSON string, results as tool messages.
func (c perfConversation) chatBody(stream bool) []byte {
	type textPart struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Arguments   string          `json:"arguments,omitempty"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type message struct {
		Role       string     `json:"role"`
		Content    any        `json:"content"`
		ToolCalls  []toolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	type tool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	type request struct {
		Model         string         `json:"model"`
		MaxTokens     int            `json:"max_completion_tokens"`
		Messages      []message      `json:"messages"`
		Tools         []tool         `json:"tools,omitempty"`
		Stream        bool           `json:"stream,omitempty"`
		StreamOptions *streamOptions `json:"stream_options,omitempty"`
	}
	r := request{Model: perfModel, MaxTokens: 4096, Stream: stream}
	if stream {
		r.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if len(c.system) > 0 {
		parts := make([]textPart, 0, len(c.system))
		for _, s := range c.system {
			parts = append(parts, textPart{"text", s})
		}
		r.Messages = append(r.Messages, message{Role: "system", Content: parts})
	}
	for _, t := range c.tools {
		r.Tools = append(r.Tools, tool{"function", function{Name: t.name, Description: t.description, Parameters: t.schema}})
	}
	for _, t := range c.turns {
		switch t.role {
		case "tool":
			r.Messages = append(r.Messages, message{Role: "tool", Content: t.text, ToolCallID: t.callID})
		case "assistant":
			m := message{Role: "assistant", Content: t.text}
			if t.callID != "" {
				m.ToolCalls = []toolCall{{ID: t.callID, Type: "function", Function: function{Name: t.callName, Arguments: string(t.callArgs)}}}
			}
			r.Messages = append(r.Messages, m)
		default:
			r.Messages = append(r.Messages, message{Role: t.role, Content: t.text})
		}
	}
	return mustJSON(r)
}
