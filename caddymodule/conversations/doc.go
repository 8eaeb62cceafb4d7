// Package conversations serves the conversations llmbridge keeps for the
// stateful APIs when the upstream keeps none of its own (it speaks another
// family): a Responses request continued by previous_response_id
// (Responses), an Interactions request continued by
// previous_interaction_id, and GET and DELETE of a stored interaction
// (Interactions). Before a request is translated its conversation is put
// back in front of its input; after the answer, the whole conversation is
// kept under the id the client was given. A Responses request is read
// once: the handler's decode finds what it continues and whether it is
// kept, and tells the request's Turn (Continue, SetStore).
//
// The stores themselves, and the Responses bodies they read and write, are
// caddymodule/sessions'; this package is the HTTP around them. It sees the
// handler through Host (a Responses request is served as any request is,
// through its Turn) and through what its callers pass in: whether a
// request is kept at all, its client's key or credential, the writer a
// translation writes into. It imports the codec, caddymodule/sessions,
// caddymodule/state and caddymodule/internal/pool, never the handler
// package.
package conversations
