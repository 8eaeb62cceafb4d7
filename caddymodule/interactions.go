package caddymodule

import (
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/mapping"
)

// The Interactions API keeps conversations on Google's servers: a client
// creates an interaction with store true (the default) and continues it
// with previous_interaction_id. Toward an Interactions upstream both pass
// through. Toward any other upstream llmbridge keeps them itself, in the
// state store: before the request is translated, the stored interaction's
// steps are put before the client's input (a request with the whole
// history, which every codec translates); after the answer, the
// interaction is stored with the steps it added, under the id the client
// was given. GET and DELETE of /{version}/interactions/{id} read and remove
// a stored interaction.

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
func (h *Handler) translateInteraction(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt route, body []byte, held *heldBuffer, x *observe.Exchange) error {
	client := rt.protocol
	if err := googleOnly(body); err != nil {
		fail(w, x, client, err)
		return nil
	}
	prev := gjson.GetBytes(body, "previous_interaction_id")
	if h.store == nil || gjson.GetBytes(body, "store").Type == gjson.False && !prev.Exists() {
		// Nothing to continue and nothing to keep.
		return h.translate(w, r, next, rt, body, held, x)
	}
	input, err := h.interactionInput(r, body)
	if err != nil {
		fail(w, x, client, err)
		return nil
	}
	if input.history != nil {
		edited, serr := continuedBody(body, input.steps)
		if serr != nil {
			fail(w, x, client, codec.InvalidRequest("input", "the input could not be joined to the stored interaction: "+serr.Error()))
			return nil
		}
		body = edited
	}
	if gjson.GetBytes(body, "store").Type == gjson.False || failover.Of(w) != nil {
		// A failover site's writer must stay the one its targets see:
		// its interactions are continued but not kept.
		return h.translate(w, r, next, rt, body, held, x)
	}
	rec := &interactionRecorder{ResponseWriter: w, keep: func(rec *interactionRecorder) { h.keepInteraction(r, rec, input.steps, len(input.history)) }}
	nextErr := h.translate(rec, r, next, rt, body, held, x)
	rec.finish()
	return nextErr
}

// googleOnly rejects what only Google's servers run, whatever the
// on_unsupported policy: a background interaction (the client would poll
// for an answer no other upstream keeps) and a managed agent (Deep
// Research and others). Dropping either would answer a different
// request.
func googleOnly(body []byte) *codec.Error {
	root := gjson.ParseBytes(body)
	if root.Get("background").Type == gjson.True {
		return codec.InvalidRequest("background", "background interactions run on Google's servers only; this gateway's upstream is not the Interactions API")
	}
	for _, k := range []string{"agent", "agent_config"} {
		if v := root.Get(k); v.Exists() && v.Type != gjson.Null {
			return codec.InvalidRequest(k, "Google's managed agents run on Google's servers only; this gateway's upstream is not the Interactions API")
		}
	}
	return nil
}

// interactionInput is the conversation a request continues: the stored
// interaction's steps followed by the request's own input, as steps.
type interactionInput struct {
	// history is the stored interaction's steps (nil when the request
	// continues none), and steps the whole input as a JSON array of steps.
	history []string
	steps   []byte
}

// interactionInput reads the request's input and, when it names a
// previous interaction, that interaction's steps from the store.
func (h *Handler) interactionInput(r *http.Request, body []byte) (interactionInput, *codec.Error) {
	var in interactionInput
	root := gjson.ParseBytes(body)
	prev := root.Get("previous_interaction_id")
	if prev.Exists() && prev.Type != gjson.Null {
		if prev.Type != gjson.String || prev.Str == "" {
			return in, codec.InvalidRequest("previous_interaction_id", "expected a string")
		}
		stored, err := h.loadInteraction(r.Context(), prev.Str)
		if err != nil {
			return in, err
		}
		in.history = []string{}
		for _, s := range stored.Get("steps").Array() {
			in.history = append(in.history, s.Raw)
		}
	}
	steps := make([]byte, 0, len(body)+64)
	steps = append(steps, '[')
	n := 0
	for _, s := range in.history {
		steps = appendElement(steps, &n, s)
	}
	steps = appendInputSteps(steps, &n, root.Get("input"))
	in.steps = append(steps, ']')
	return in, nil
}

// appendElement appends raw as the next element of a JSON array, of
// which *n are written.
func appendElement(dst []byte, n *int, raw string) []byte {
	if *n > 0 {
		dst = append(dst, ',')
	}
	*n++
	return append(dst, raw...)
}

// appendInputSteps appends the request's input as steps: a string or
// content objects are a user_input step, steps are themselves.
func appendInputSteps(dst []byte, n *int, input gjson.Result) []byte {
	switch {
	case input.Type == gjson.String:
		return appendElement(dst, n, `{"type":"user_input","content":[{"type":"text","text":`+input.Raw+`}]}`)
	case input.IsObject():
		if isContent(input) {
			return appendElement(dst, n, `{"type":"user_input","content":[`+input.Raw+`]}`)
		}
		return appendElement(dst, n, input.Raw)
	case !input.IsArray():
		return dst
	}
	var content []string
	flush := func() {
		if len(content) > 0 {
			dst = appendElement(dst, n, `{"type":"user_input","content":[`+strings.Join(content, ",")+`]}`)
			content = content[:0]
		}
	}
	for _, e := range input.Array() {
		if isContent(e) {
			content = append(content, e.Raw)
			continue
		}
		flush()
		dst = appendElement(dst, n, e.Raw)
	}
	flush()
	return dst
}

// isContent reports whether v is a content object rather than a step.
func isContent(v gjson.Result) bool {
	switch v.Get("type").Str {
	case "text", "image", "audio", "document", "video":
		return true
	}
	return false
}

// continuedBody returns body with steps as its input and without
// previous_interaction_id, which the translation cannot carry.
func continuedBody(body, steps []byte) ([]byte, error) {
	out, err := sjson.SetRawBytes(body, "input", steps)
	if err == nil {
		out, err = sjson.DeleteBytes(out, "previous_interaction_id")
	}
	return out, err
}

// unknownInteraction is the error for an interaction id the store does
// not hold.
func unknownInteraction(param, id string) *codec.Error {
	e := &codec.Error{Status: http.StatusBadRequest, Kind: mapping.ErrInvalidRequest, Param: param,
		Message: `interaction "` + id + `" was not found: it expired, was deleted or was never stored by this gateway ` +
			`(interactions are kept for ` + shortDuration(interactionTTL) + `); send the whole conversation as input instead`}
	if param == "" {
		e.Status, e.Kind = http.StatusNotFound, mapping.ErrNotFound
	}
	return e
}

// shortDuration writes d without its zero tails: 1h, not 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
