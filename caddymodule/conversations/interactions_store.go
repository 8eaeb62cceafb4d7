package conversations

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
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

// keep stores the interaction the client was given, with the whole
// conversation as its steps: the input steps (the continued interaction's,
// history of them, and the request's), then the answer's, with where the
// request's input and the answer begin (storedSpan). The stored object is
// written in one pass over the answer's members, steps replaced: editing
// the answer member by member copied the whole conversation once per edit.
func (s *Interactions) keep(ctx context.Context, rec *Recorder, in interactionInput) {
	answer := rec.answer()
	id := gjson.GetBytes(answer, "id")
	if id.Type != gjson.String || id.Str == "" || !gjson.ValidBytes(answer) {
		return
	}
	input := in.steps
	stored := make([]byte, 0, len(input)+2*len(answer)+64)
	stored = append(stored, '{')
	var answerSteps gjson.Result
	gjson.ParseBytes(answer).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "steps":
			answerSteps = v
			return true
		case storedSpan:
			return true
		}
		stored = append(stored, k.Raw...)
		stored = append(stored, ':')
		stored = append(stored, v.Raw...)
		stored = append(stored, ',')
		return true
	})
	stored = append(stored, `"steps":`...)
	stored = append(stored, input[:len(input)-1]...)
	n := in.n
	output := n
	answerSteps.ForEach(func(_, step gjson.Result) bool {
		stored = appendElement(stored, &n, step.Raw)
		return true
	})
	stored = append(stored, `],"`+storedSpan+`":{"input":`...)
	stored = strconv.AppendInt(stored, int64(in.history), 10)
	stored = append(stored, `,"output":`...)
	stored = strconv.AppendInt(stored, int64(output), 10)
	stored = append(stored, "}}"...)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.Store.Set(ctx, interactionKey(id.Str), sessions.Compact(stored), interactionTTL); err != nil {
		s.Logger.Warn("storing an interaction failed; continuing it will fail", zap.String("interaction", id.Str), zap.Error(err))
	}
}

// load returns the stored interaction id names, or a 400 in Google's
// format when the store has none.
func (s *Interactions) load(ctx context.Context, id string) (gjson.Result, *codec.Error) {
	v, err := s.read(ctx, id)
	if err != nil {
		return v, err
	}
	if !v.Exists() {
		return v, unknownInteraction("previous_interaction_id", id)
	}
	return v, nil
}

// read reads a stored interaction; a result that does not exist when the
// store has none.
func (s *Interactions) read(ctx context.Context, id string) (gjson.Result, *codec.Error) {
	raw, ok, err := s.Store.Get(ctx, interactionKey(id))
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

// StoredID returns the id of the interaction path names, when it names
// one: /{version}/interactions/{id}.
func StoredID(path string) (string, bool) {
	m := storedInteractionPath.FindStringSubmatch(path)
	if m == nil {
		return "", false
	}
	return m[2], true
}

// ServeStored answers a GET (the stored interaction's output, with
// ?include_input=true its request's input too) or a DELETE of the
// interaction id, which the store keeps; an error is for the caller to
// answer, in Google's format. Other methods are the caller's to refuse.
func (s *Interactions) ServeStored(w http.ResponseWriter, r *http.Request, id string) *codec.Error {
	if s.Store == nil {
		return unknownInteraction("", id)
	}
	v, cerr := s.read(r.Context(), id)
	switch {
	case cerr != nil:
		return cerr
	case !v.Exists():
		return unknownInteraction("", id)
	case r.Method == http.MethodDelete:
		if err := s.Store.Delete(r.Context(), interactionKey(id)); err != nil {
			return codec.NewError(mapping.ErrOverloaded, "the gateway's state store, where interactions are kept, cannot be reached")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("{}"))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(storedAnswer(v, r.URL.Query().Get("include_input") == "true"))
	}
	return nil
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
