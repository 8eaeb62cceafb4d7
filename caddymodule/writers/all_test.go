package writers

// The writers' tests read real bodies and events: every protocol family
// is registered, as in the handler that uses the writers.
import _ "github.com/llmbridge/llmbridge/codec/all"
