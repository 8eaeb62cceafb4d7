package caddymodule

import (
	"net/http"
	"strings"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/llmbridge/llmbridge/caddymodule/conversations"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/mapping"
)

// The Interactions API keeps conversations on Google's servers: a client
// creates an interaction with store true (the default) and continues it
// with previous_interaction_id. Toward an Interactions upstream both pass
// through. Toward any other upstream llmbridge keeps them itself
// (conversations.Interactions), in the state store.

// isInteractionsClient reports whether client speaks the Interactions API
// toward an upstream that does not, which is when llmbridge keeps the
// interactions.
func isInteractionsClient(client, upstream codec.Protocol) bool {
	return client.Family() == interactions.Gemini && upstream.Family() != interactions.Gemini
}

// translateInteraction translates an Interactions client's request toward
// an upstream of another family: it continues the stored interaction
// previous_interaction_id names, and stores the answer unless the client
// asked for store false.
func (h *Handler) translateInteraction(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt route, body []byte, held *writers.Held, x *observe.Exchange) error {
	// A failover site's writer must stay the one its targets see: its
	// interactions are continued but not kept.
	body, rec, cerr := h.interactions.Continue(w, r, body, failover.Of(w) == nil)
	if cerr != nil {
		fail(w, x, rt.protocol, cerr)
		return nil
	}
	if rec == nil {
		return h.translate(w, r, next, rt, body, held, x)
	}
	nextErr := h.translate(rec, r, next, rt, body, held, x)
	rec.Finish()
	return nextErr
}

// serveStoredInteraction answers GET and DELETE of an interaction
// llmbridge keeps, and reports whether r was such a request. Toward an
// Interactions upstream the request goes to it, with the upstream's
// credential.
func (h *Handler) serveStoredInteraction(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, x *observe.Exchange) (bool, error) {
	id, ok := conversations.StoredID(r.URL.Path)
	if !ok || (h.client != "" && h.client.Family() != interactions.Gemini) {
		return false, nil
	}
	client := interactions.Gemini
	x.Client = client
	if r.Method != http.MethodGet && r.Method != http.MethodDelete {
		fail(w, x, client, codec.NewError(mapping.ErrMethodNotAllowed, "method "+r.Method+" is not allowed; use GET or DELETE"))
		return true, nil
	}
	if x.Upstream.Family() == interactions.Gemini {
		if cerr := h.rewriteHeaders(r, client, x.Upstream, false, h.credentialOf(x)); cerr != nil {
			fail(w, x, client, cerr)
			return true, nil
		}
		// The collection's path: the create path without a method,
		// if it has one.
		path, _ := h.upstreamPath(x.Upstream, "", false)
		if i := strings.LastIndexByte(path, ':'); i > strings.LastIndexByte(path, '/') {
			path = path[:i]
		}
		setPath(r, path+"/"+id, "")
		return true, next.ServeHTTP(w, r)
	}
	if cerr := h.interactions.ServeStored(w, r, id); cerr != nil {
		fail(w, x, client, cerr)
		return true, nil
	}
	x.Status = http.StatusOK
	return true, nil
}
