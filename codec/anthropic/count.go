package anthropic

// anthropicCountFields are the members of an Anthropic count_tokens body
// (anthropic-sdk-go MessageCountTokensParams and its beta).
var anthropicCountFields = []string{"model", "messages", "system", "tools", "tool_choice", "thinking",
	"output_config", "cache_control", "context_management", "mcp_servers", "speed"}
