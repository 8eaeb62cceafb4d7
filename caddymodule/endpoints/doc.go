// Package endpoints serves the endpoints of the LLM APIs that are not
// generation: model listings (GET …/v1/models, …/v1beta/models) and token
// counting (Anthropic's count_tokens, Gemini's and Vertex's countTokens,
// Responses' input_tokens). It owns what such a request is (Detect: which
// endpoint, in which client protocol, for which model), what is refused
// before any upstream call (a wrong method, an upstream protocol without
// the endpoint, a count without a model or with one unfit for a path),
// the request sent upstream (a listing's paging, a count translated as
// the generation request it counts, or passed through with its model
// routed) and the translation of the upstream's answer.
//
// It sees the handler through Host: the upstream and its model routes,
// the client's body read within the site's bounds, the headers and
// credentials of the upstream call, refusals written by the handler's one
// writer of errors, and the call itself, whose answer the handler
// collects and checks as its other writers do (the client gets an
// upstream's error in its own format, a broken answer as a 502); this
// package only translates a JSON success. It imports the codec and
// mapping, caddymodule/observe (the exchange it notes models in) and
// caddymodule/internal/pool, never the handler package.
package endpoints
