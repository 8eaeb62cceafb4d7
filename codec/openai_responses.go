package codec

// The openai_responses_*.go files are the codec of the OpenAI Responses API
// (POST /v1/responses).
//
// Scope: conversations of text, refusals, reasoning items (summaries and
// encrypted_content, carried between families in continuation envelopes),
// function tools (definitions, tool_choice, parallel_tool_calls,
// function_call and function_call_output items), images (input_image),
// documents (input_file), reasoning settings, structured output
// (text.format), verbosity, custom (freeform) tools, Codex namespace tool
// groups and the hosted web search (tools.go, hosted.go). Other hosted
// tools and audio are rejected by name. Output items llmbridge does not
// translate are kept whole as opaque parts (opaquePart), except those that
// ask the client to act (responsesClientAction), which fail the response.

// The openai_responses_stream_*.go files are the stream codec of the OpenAI
// Responses API: upstream Responses SSE events to canonical stream events,
// and canonical events to the Responses SSE sequence a client expects.
//
// Scope: text and refusal content parts, reasoning items (summaries,
// reasoning text and encrypted_content), function and custom tool calls,
// web search calls and url_citation annotations, stop reasons, usage and
// errors. Other output items are kept whole as opaque parts (opaqueDone),
// except those that ask the client to act, which end the stream with an
// error.

// responsesClientAction are the output item types that ask the client to
// act (run a tool, answer an approval): they cannot be carried as opaque
// state, since the turn would end without the action.
var responsesClientAction = map[string]bool{
	"custom_tool_call": true, "local_shell_call": true, "shell_call": true, "computer_call": true,
	"apply_patch_call": true, "mcp_approval_request": true,
}
