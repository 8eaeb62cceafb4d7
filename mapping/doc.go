// Package mapping holds the lossy or context-dependent correspondences between
// LLM wire protocols: stop and finish reasons, error kinds and HTTP statuses,
// and the meaning of token usage counters.
//
// Each correspondence is an explicit, protocol-local function with a table
// test beside it. The canonical vocabulary those functions translate through
// (StopReason, ErrorKind, Usage) lives here too, so that codecs can depend on
// mapping without mapping depending on codecs.
package mapping
