// Package writers holds the response writers the handler gives
// reverse_proxy: Translating, which collects a JSON answer and writes its
// translation in the client's protocol, or hands a stream to a
// streams.Translator as it arrives; and Passthrough, which passes an
// answer of the client's own wire family byte for byte while it keeps to
// its protocol (a held JSON body checked whole, a stream event by event)
// and answers the client's own error in its place when it does not. Both
// give back what an open stream no longer needs (the client's body, the
// body sent, the request's decode memory, a retry's state) and end the
// client's response properly however the upstream's ends. It also writes
// llmbridge's own errors in a client's protocol (WriteError), reads an
// upstream's (DecodeUpstreamError) and answers an upstream that never
// answered (Site.UpstreamFailed).
//
// The handler decides which writer a request gets, and retries a refusal
// that teaches a fix with a second writer (Translating.Retry,
// Passthrough.Retry); this package imports the codec, mapping, sse,
// caddymodule/streams, caddymodule/failover, caddymodule/observe and
// caddymodule/internal/pool, never the handler package.
package writers
