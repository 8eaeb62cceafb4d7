package caddymodule

// The modules and commands llmbridge ships beside the handler, each in a
// package of its own, registered when the handler's package is imported:
// the clouds (clouds.Namespace), the llm_model request matcher, and the
// limits' admin API module and llmbridge-limits command.
import (
	_ "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	_ "github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
	_ "github.com/llmbridge/llmbridge/caddymodule/clouds/google"
	_ "github.com/llmbridge/llmbridge/caddymodule/limits/admin"
	_ "github.com/llmbridge/llmbridge/caddymodule/match"
)
