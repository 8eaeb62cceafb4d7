package conversations

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
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

// Interactions keeps the Interactions API's conversations for a site
// whose upstream speaks another family, in the state store.
type Interactions struct {
	// Store keeps the interactions; nil keeps none, and a request that
	// continues one is told it does not exist.
	Store state.Store

	// Logger tells of an interaction the store failed to keep.
	Logger *zap.Logger
}

// Continue prepares an Interactions request, body, for its translation:
// it refuses what only Google's servers run, and puts the steps of the
// stored interaction previous_interaction_id names before the request's
// input. It returns the body to translate and, when the answer is to be
// kept (the request does not say store: false, and keep is true), the
// writer the translation writes its answer into, which the caller
// finishes (Recorder.Finish) once the translation returns.
func (s *Interactions) Continue(w http.ResponseWriter, r *http.Request, body []byte, keep bool) ([]byte, *Recorder, *codec.Error) {
	var v [len(interactionKeys)]gjson.Result
	if !codec.ReadTopMembers(body, interactionKeys[:], v[:]) {
		// Not an object: the translation rejects it precisely.
		return body, nil, nil
	}
	if err := googleOnly(v[0], v[1:3]); err != nil {
		return nil, nil, err
	}
	prev, store, input := v[3], v[4], v[5]
	if s.Store == nil || store.Type == gjson.False && !prev.Exists() {
		// Nothing to continue and nothing to keep.
		return body, nil, nil
	}
	in, err := s.input(r.Context(), prev, input)
	if err != nil {
		return nil, nil, err
	}
	if in.continued {
		edited, serr := continuedBody(body, in.steps)
		if serr != nil {
			return nil, nil, codec.InvalidRequest("input", "the input could not be joined to the stored interaction: "+serr.Error())
		}
		body = edited
	}
	if store.Type == gjson.False || !keep {
		return body, nil, nil
	}
	ctx := r.Context()
	rec := &Recorder{ResponseWriter: w, keep: func(rec *Recorder) { s.keep(ctx, rec, in) }}
	return body, rec, nil
}

// interactionKeys are the members of a request's top level Continue reads,
// in one skim of the body: what only Google's servers run (background,
// then the managed agent's members), the interaction it continues,
// whether its answer is kept, and its input.
var interactionKeys = [...]string{"background", "agent", "agent_config", "previous_interaction_id", "store", "input"}

// googleOnly rejects what only Google's servers run, whatever the
// on_unsupported policy: a background interaction (the client would poll
// for an answer no other upstream keeps) and a managed agent (Deep
// Research and others), given the request's background and its agent
// members (agent, agent_config). Dropping either would answer a different
// request.
func googleOnly(background gjson.Result, agent []gjson.Result) *codec.Error {
	if background.Type == gjson.True {
		return codec.InvalidRequest("background", "background interactions run on Google's servers only; this gateway's upstream is not the Interactions API")
	}
	for i, v := range agent {
		if v.Exists() && v.Type != gjson.Null {
			return codec.InvalidRequest(interactionKeys[1+i], "Google's managed agents run on Google's servers only; this gateway's upstream is not the Interactions API")
		}
	}
	return nil
}

// interactionInput is the conversation a request continues: the stored
// interaction's steps followed by the request's own input, as steps.
type interactionInput struct {
	// continued says that the request continues a stored interaction,
	// whose history steps begin steps; steps is the whole input as a JSON
	// array of n steps.
	continued bool
	history   int
	steps     []byte
	n         int
}

// input reads the request's input and, when it names a previous
// interaction (prev), that interaction's steps from the store.
func (s *Interactions) input(ctx context.Context, prev, input gjson.Result) (interactionInput, *codec.Error) {
	var in interactionInput
	var stored gjson.Result // the continued interaction, if any
	if prev.Exists() && prev.Type != gjson.Null {
		if prev.Type != gjson.String || prev.Str == "" {
			return in, codec.InvalidRequest("previous_interaction_id", "expected a string")
		}
		var err *codec.Error
		if stored, err = s.load(ctx, prev.Str); err != nil {
			return in, err
		}
		in.continued = true
	}
	steps := make([]byte, 0, len(stored.Raw)+len(input.Raw)+64)
	steps = append(steps, '[')
	n := 0
	stored.Get("steps").ForEach(func(_, step gjson.Result) bool {
		steps = appendElement(steps, &n, step.Raw)
		return true
	})
	in.history = n
	steps = appendInputSteps(steps, &n, input)
	in.steps, in.n = append(steps, ']'), n
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
	input.ForEach(func(_, e gjson.Result) bool {
		if isContent(e) {
			content = append(content, e.Raw)
			return true
		}
		flush()
		dst = appendElement(dst, n, e.Raw)
		return true
	})
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
