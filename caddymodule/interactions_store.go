package caddymodule

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/mapping"
)

// interactionTTL is how long a stored interaction is kept after it was
// created or last continued: as long as a Responses item, long enough for
// an agent's session and short enough that stored conversations do not
// pile up.
const interactionTTL = sessions.DefaultItemCacheTTL

// interactionKey is the store key of an interaction.
func interactionKey(id string) string { return "interaction:" + id }

// Interactions are stored compacted (sessions.Compact): a conversation's steps
// repeat its history, which compresses well.

// storedSpan is the member of a stored interaction that says where its
// own steps begin among the conversation's: its input (after the
// continued interaction's steps) and its output. It is the gateway's own
// and never reaches a client.
const storedSpan = "llmbridge_span"

// keepInteraction stores the interaction the client was given, with the
// whole conversation as its steps: the input steps (the continued
// interaction's, history of them, and the request's), then the answer's,
// with where the request's input and the answer begin (storedSpan).
func (h *Handler) keepInteraction(r *http.Request, rec *interactionRecorder, input []byte, history int) {
	answer := rec.answer()
	id := gjson.GetBytes(answer, "id")
	if id.Type != gjson.String || id.Str == "" {
		return
	}
	steps := make([]byte, 0, len(input)+len(answer))
	steps = append(steps, input[:len(input)-1]...)
	n := len(gjson.ParseBytes(input).Array())
	output := n
	for _, s := range gjson.GetBytes(answer, "steps").Array() {
		steps = appendElement(steps, &n, s.Raw)
	}
	steps = append(steps, ']')
	stored, err := sjson.SetRawBytes(answer, "steps", steps)
	if err == nil {
		stored, err = sjson.SetRawBytes(stored, storedSpan, []byte(`{"input":`+strconv.Itoa(history)+`,"output":`+strconv.Itoa(output)+`}`))
	}
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
	defer cancel()
	if err := h.store.Set(ctx, interactionKey(id.Str), sessions.Compact(stored), interactionTTL); err != nil {
		h.logger.Warn("storing an interaction failed; continuing it will fail", zap.String("interaction", id.Str), zap.Error(err))
	}
}

// loadInteraction returns the stored interaction id names, or a 400 in
// Google's format when the store has none.
func (h *Handler) loadInteraction(ctx context.Context, id string) (gjson.Result, *codec.Error) {
	v, err := h.readInteraction(ctx, id)
	if err != nil {
		return v, err
	}
	if !v.Exists() {
		return v, unknownInteraction("previous_interaction_id", id)
	}
	return v, nil
}

// readInteraction reads a stored interaction; a result that does not
// exist when the store has none.
func (h *Handler) readInteraction(ctx context.Context, id string) (gjson.Result, *codec.Error) {
	raw, ok, err := h.store.Get(ctx, interactionKey(id))
	if err != nil {
		return gjson.Result{}, codec.NewError(mapping.ErrOverloaded, "the gateway's state store, where interactions are kept, cannot be reached")
	}
	if !ok {
		return gjson.Result{}, nil
	}
	plain, derr := sessions.Expand(raw)
	if derr != nil || !gjson.ValidBytes(plain) {
		return gjson.Result{}, nil
	}
	return gjson.ParseBytes(plain), nil
}

// storedInteractionPath matches the path of one interaction:
// /{version}/interactions/{id}. An id is one path segment that does not
// start with a dot, so that it cannot name another upstream path (. or
// ..) when it is passed on.
var storedInteractionPath = regexp.MustCompile(`^/(v1|v1beta|v1alpha)/interactions/([A-Za-z0-9_\-][A-Za-z0-9_.\-]*)$`)

// serveStoredInteraction answers GET (the stored interaction, its whole
// conversation as steps) and DELETE of an interaction llmbridge keeps, and
// reports whether r was such a request. Toward an Interactions upstream
// the request goes to it, with the upstream's credential.
func (h *Handler) serveStoredInteraction(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, x *observe.Exchange) (bool, error) {
	m := storedInteractionPath.FindStringSubmatch(r.URL.Path)
	if m == nil || (h.client != "" && h.client.Family() != interactions.Gemini) {
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
		setPath(r, path+"/"+m[2], "")
		return true, next.ServeHTTP(w, r)
	}
	if h.store == nil {
		fail(w, x, client, unknownInteraction("", m[2]))
		return true, nil
	}
	v, cerr := h.readInteraction(r.Context(), m[2])
	switch {
	case cerr != nil:
		fail(w, x, client, cerr)
	case !v.Exists():
		fail(w, x, client, unknownInteraction("", m[2]))
	case r.Method == http.MethodDelete:
		if err := h.store.Delete(r.Context(), interactionKey(m[2])); err != nil {
			fail(w, x, client, codec.NewError(mapping.ErrOverloaded, "the gateway's state store, where interactions are kept, cannot be reached"))
			return true, nil
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("{}"))
		x.Status = http.StatusOK
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(storedAnswer(v, r.URL.Query().Get("include_input") == "true"))
		x.Status = http.StatusOK
	}
	return true, nil
}

// storedAnswer is a stored interaction as GET answers it: its own output
// steps, and with includeInput its request's input before them (as
// Google's include_input), never the steps of the interactions it
// continued. One stored without a span has all its steps.
func storedAnswer(v gjson.Result, includeInput bool) []byte {
	span := v.Get(storedSpan)
	out := []byte(v.Raw)
	if !span.Exists() {
		return out
	}
	out, _ = sjson.DeleteBytes(out, storedSpan)
	from := span.Get("output").Int()
	if includeInput {
		from = span.Get("input").Int()
	}
	steps := v.Get("steps").Array()
	if from < 0 || from > int64(len(steps)) {
		from = 0
	}
	raw := []byte{'['}
	n := 0
	for _, s := range steps[from:] {
		raw = appendElement(raw, &n, s.Raw)
	}
	out, _ = sjson.SetRawBytes(out, "steps", append(raw, ']'))
	return out
}
