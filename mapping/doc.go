// Package mapping holds the lossy or context-dependent correspondences between
// LLM wire protocols: stop and finish reasons, error kinds and HTTP statuses,
// and the meaning of token usage counters.
//
// Each correspondence is an explicit, protocol-local function with a table
// test beside it, and every protocol's are declared by one pattern: the
// function that reads a wire value is named From and the value, the one
// that writes it by the value (FromAnthropicStopReason and
// AnthropicStopReason, FromConverseStopReason and ConverseStopReason,
// FromGoogleStatus and GoogleStatus). The canonical vocabulary those functions translate through
// (StopReason, ErrorKind, Usage) lives here too, so that codecs can depend on
// mapping without mapping depending on codecs.
package mapping
