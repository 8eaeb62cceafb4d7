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
	// Dialect is the OpenAI-compatible server an openai-chat upstream is;
	// nil is OpenAI itself.
	Dialect *Dialect
}

// IDFormat is the form of tool-call id a server accepts.
type IDFormat uint8

// Tool-call id formats.
const (
	// IDAny takes the ids as they are.
	IDAny IDFormat = iota
	// IDAlnum9 takes exactly nine characters of a-z, A-Z and 0-9 (Mistral).
	// Other ids are mapped to one by a hash, the same id always to the same
	// value, so a call and its result still match; ids the server issued
	// itself already have this form and pass unchanged.
	IDAlnum9
)

// Dialect is how an OpenAI-compatible server departs from OpenAI Chat
// Completions. The zero value is OpenAI.
type Dialect struct {
	// Name is the dialect's name in configuration (deepseek, mistral, ...).
	Name string
	// NoDeveloperRole sends developer instructions with the system role,
	// for servers that reject the developer role.
	NoDeveloperRole bool
	// MaxTokens writes the output limit as max_tokens instead of
	// max_completion_tokens, for servers that reject or ignore the latter.
	MaxTokens bool
	// ReasoningField is the assistant message field that carries reasoning
	// text back in history: "reasoning_content" (OpenAI's own Chat API has
	// none, so the zero value sends none), or "reasoning".
	ReasoningField string
	// ReasoningInToolLoop reports that assistant messages with tool calls
	// in the current tool loop must carry their reasoning (DeepSeek's
	// thinking mode answers 400 without it); an empty reasoning_content is
	// sent where the history has none.
	ReasoningInToolLoop bool
	// NoStreamOptions leaves stream_options out of streamed requests, for
	// servers that reject it.
	NoStreamOptions bool
	// ToolCallIDs is the tool-call id format the server accepts.
	ToolCallIDs IDFormat
}
