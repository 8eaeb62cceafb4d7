// Package sessions keeps what a client's conversation leaves between its
// requests, for upstreams that keep nothing: the Responses output items
// whose ids cannot carry them (for item references), and the
// conversations of translated Responses answers (for
// previous_response_id). Each has two stores, one in the process's memory
// (bounded in bytes, entries expiring) and one over a state.Store that
// several instances share; values kept in a shared store are compacted
// (Compact, Expand). It also reads and writes the Responses bodies a
// continued conversation touches (ReadAsk, ExpandBody, ReadAnswer,
// AppendConversation).
//
// It knows neither HTTP nor Caddy: the handler package decides when to
// keep and when to continue, and imports this one; this package imports
// only the codec, caddymodule/state and caddymodule/internal/pool.
package sessions
