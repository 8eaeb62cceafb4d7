// Package streams carries an upstream's event stream to the client as it
// arrives. A Translator decodes each upstream event, encodes it in the
// client's protocol and flushes what one upstream read produced, without a
// goroutine or a buffer held while the stream waits; it ends the client's
// stream properly when the upstream's breaks off, and streams an answer an
// upstream gave as one JSON body (Respond). Streams are SSE text inside
// llmbridge whatever a protocol's framing: an AWS event stream is read
// into SSE text at the upstream's edge and written as event stream
// messages at a client's (Framing, which the translator and the
// passthrough writer share). Once the client's stream is
// complete the upstream's is no longer read (Cutoff). While a pooled
// upstream key's stream shows no content yet, a rate limit in it cools the
// key (WatchKey).
//
// The handler's writers decide when a stream is translated and hand it
// here; this package imports the codec, sse, caddymodule/observe (the
// exchange every event is observed into), caddymodule/failover (the
// attempt writer and the key pool) and caddymodule/internal/pool, never
// the handler package.
package streams
