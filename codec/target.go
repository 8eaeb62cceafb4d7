package codec

// Target is what an upstream accepts beyond its wire protocol: facts of the
// target model and of the server that change how a request is written.
// The model rules (package rules) derive it for each request; the zero
// value writes each protocol as its first-party API takes it.
type Target struct {
	// ThinkingLevel reports that the Gemini model takes
	// thinkingConfig.thinkingLevel (Gemini 3): a reasoning effort is written
	// as a level, never as a thinkingBudget (the two together are a 400).
	ThinkingLevel bool
	// SignedFunctionCalls reports that the Gemini model requires the first
	// functionCall part of each model step of the current turn to carry a
	// thoughtSignature (Gemini 3). A call that has none of its own (the
	// history came from another provider, or the client dropped it) gets
	// the value Google documents for that case.
	SignedFunctionCalls bool
	// ThinkingTypeDisabled reports that the model thinks unless told not
	// to with thinking: {type: disabled}, which is how reasoning effort none
	// is written toward an OpenAI-compatible server (DeepSeek V4, where
	// reasoning_effort none does not turn thinking off). Anthropic's
	// encoder writes disabled thinking so in any case.
	ThinkingTypeDisabled bool
	// Dialect is the OpenAI-compatible server an openai-chat upstream is;
	// nil is OpenAI itself.
	Dialect *Dialect
	// EffortOn, when set, is the reasoning_effort written for every effort
	// above none, for a model that names "reasoning on" its own way
	// (Groq's qwen3 takes none and default).
	EffortOn string
	// Cache is what the model's prompt cache takes.
	Cache CacheTarget
}

// IDFormat is the form of tool-call id a server accepts.
type IDFormat uint8

// Tool-call id formats.
const (
	// IDAny takes the ids as they are.
	IDAny IDFormat = iota
	// IDAlnum9 takes exactly nine characters of a-z, A-Z and 0-9 (Mistral:
	// "Tool call id was call_… but must be a-z, A-Z, 0-9, with a length of
	// 9"). Other ids, in assistant tool_calls and in tool messages' tool_call_id
	// alike, are mapped to nine base-62 digits of a hash of the id, the same
	// id always to the same value whatever instance encodes it, so a call
	// and its result still match; ids the server issued itself already have
	// this form and pass unchanged.
	IDAlnum9
)

// Dialect is how an OpenAI-compatible server departs from OpenAI Chat
// Completions. The zero value is OpenAI.
type Dialect struct {
	// Name is the dialect's name in configuration (deepseek, mistral, ...).
	Name string
	// NoDeveloperRole sends developer instructions (a system prompt given
	// with the developer role, and developer messages later in the
	// conversation) with the system role, for servers that reject the
	// developer role (DeepSeek: "unknown variant `developer`").
	NoDeveloperRole bool
	// MaxTokens writes the output limit as max_tokens instead of
	// max_completion_tokens, for servers that reject the latter (Mistral)
	// or ignore it (DeepSeek).
	MaxTokens bool
	// ReasoningField is the assistant message field that carries unsigned
	// reasoning text back in history (signed reasoning reaches no Chat
	// server). "" or "reasoning_content" writes reasoning_content, what
	// the encoder always wrote (DeepSeek, vLLM; OpenAI ignores it);
	// "reasoning" writes reasoning (OpenRouter, some vLLM and Ollama
	// builds); "none" writes no reasoning field, for servers that reject
	// one, and lists each reasoning part with text in Request.Dropped.
	// Other values are taken as "".
	ReasoningField string
	// ReasoningInToolLoop reports that the assistant messages of a turn
	// that made tool calls must carry a reasoning field: DeepSeek's
	// thinking mode answers 400 ("Missing `reasoning_content` field in the
	// assistant message at message index N") without it. Every assistant
	// message of such a turn (from a user message to the next: the tool
	// calls and the answer that ends the turn) that has no unsigned
	// reasoning text of its own (the history came from another provider,
	// or its reasoning was signed and dropped) gets an empty one, in the
	// field ReasoningField names; with "none", none. That is every such
	// turn in the history, not only the current tool loop: DeepSeek's
	// thinking-mode guide first asked it of the current turn's tool loop,
	// and since V4 asks it of every turn that called tools, in all later
	// requests; reasoning sent where it is not needed is ignored.
	ReasoningInToolLoop bool
	// NoStreamOptions leaves stream_options out of streamed requests, for
	// servers that reject it: "stream":true alone. Usage then reaches the
	// client only if the server reports it unasked.
	NoStreamOptions bool
	// ToolCallIDs is the tool-call id format the server accepts.
	ToolCallIDs IDFormat
	// AssistantAfterTool reports that a user message may not follow a
	// tool message (Mistral: "Unexpected role 'user' after role 'tool'"):
	// where the conversation has one there (text the user typed while
	// tools ran, images a tool returned, which Chat tool messages cannot
	// carry), an assistant message saying only that the results were
	// received is written between them.
	AssistantAfterTool bool
}
