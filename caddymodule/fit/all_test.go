package fit

// The fitter's tests translate real requests: every protocol family is
// registered, as in the handler that uses the fitter.
import _ "github.com/llmbridge/llmbridge/codec/all"
