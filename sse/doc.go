// Package sse reads and writes Server-Sent Events streams, the framing that
// every LLM provider llmbridge speaks uses for streamed responses.
//
// Reader is an incremental, allocation-free (in steady state) parser that
// follows the WHATWG "event stream interpretation" rules with three
// deliberate additions needed for real provider traffic:
//
//   - Gemini interleaves bare JSON error objects, written without a data:
//     prefix, into its event streams. Such lines are returned as events
//     with Bare set (see Reader for the exact rule).
//   - A stream that ends at a line end dispatches a pending event that has
//     data even without a final blank line (Gemini and genai do this), but a
//     stream cut in the middle of a line returns io.ErrUnexpectedEOF, so that
//     a truncated upstream response is never mistaken for a clean end.
//   - Events are bounded in size (ErrEventTooLarge) so that memory stays
//     bounded whatever the upstream sends.
//
// AppendEvent and AppendComment write events by appending to a caller's
// buffer, so that a translating proxy can reuse one buffer per stream and
// flush once per event.
package sse
