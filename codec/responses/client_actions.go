package responses

// clientAction are the output item types that ask the client to
// act (run a tool, answer an approval): they cannot be carried as opaque
// state, since the turn would end without the action.
var clientAction = map[string]bool{
	"custom_tool_call": true, "local_shell_call": true, "shell_call": true, "computer_call": true,
	"apply_patch_call": true, "mcp_approval_request": true,
}
