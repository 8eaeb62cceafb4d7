package responses

// countFields are the members of a Responses input_tokens body
// (openai-go responses.InputTokenCountParams).
var countFields = []string{"model", "input", "instructions", "tools", "tool_choice",
	"parallel_tool_calls", "previous_response_id", "conversation", "text", "reasoning", "truncation", "personality"}
