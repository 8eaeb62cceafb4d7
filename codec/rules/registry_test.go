package rules

// The rules' tests decode and encode requests of every protocol.
import _ "github.com/llmbridge/llmbridge/codec/all"
