package caddymodule

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// passthrough handles a request whose client and upstream protocols share a
// wire format. The body passes byte for byte, except for the edits the
// dialects need (Anthropic on Vertex has no model and an anthropic_version).
// held is the pooled buffer holding body, which an open stream gives back
// early.
func (h *Handler) passthrough(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt route, body []byte, held *writers.Held, x *observe.Exchange) error {
	client := rt.protocol
	head, err := codec.ReadRequestHead(body)
	if err != nil {
		fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body is not a valid JSON object"))
		return nil
	}
	if key := head.Repeated; key != "" {
		// llmbridge reads these keys to route and edit the body; a second
		// copy would make the path and the body name different things.
		fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: key, Message: "key " + strconv.Quote(key) + " appears more than once"})
		return nil
	}
	model, stream := rt.model, rt.stream
	pathModel := false
	if !client.ModelInPath() {
		if !head.HasModel && rt.model == "" && x.Upstream.ModelInPath() {
			fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model is required and must be a string"})
			return nil
		}
		model = head.Model
		stream = head.Stream
		if !head.HasModel && rt.model != "" {
			// An Azure OpenAI deployment path names the model the body
			// leaves out; the upstream's body needs it.
			model, pathModel = rt.model, true
		}
	}
	model = strings.TrimPrefix(model, "models/")
	x.Stream = stream
	// The body decoded, once, for what reads it beside the passthrough
	// (a limit's estimate, a prompt cache key, the span's content).
	dec := passthroughDecode{client: client, body: body}
	defer dec.release()
	if x.Tel.CapturesContent() {
		req, _ := dec.request()
		x.Tel.NoteHead(&head, req)
	} else {
		x.Tel.NoteHead(&head, nil)
	}
	upModel, routed := h.routeModel(client, model)
	x.SetModels(model, upModel)
	if x.Upstream.ModelInPath() {
		upModel = strings.TrimPrefix(upModel, "models/")
		x.SetModels(model, upModel)
		if err := checkPathModel(upModel, x.Upstream); err != nil {
			fail(w, x, client, err)
			return nil
		}
	}
	if (routed || pathModel) && !client.ModelInPath() && !x.Upstream.ModelInPath() {
		// Both sides carry the model in the body: rewrite it there.
		var err error
		if body, err = sjson.SetBytes(body, "model", upModel); err != nil {
			fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
			return nil
		}
	}

	if h.limits != nil && !h.limits.Admit(w, r, x, h.passthroughEstimate(&dec, &head, x)) {
		return nil
	}

	var adjusted []rules.Adjustment
	// A body is fitted when routing sent it to another model than the one
	// it was made for, when its model's refusals taught rules (learn.go),
	// or when it asks for an hour of prompt cache its model does not have
	// on this upstream (Claude before 4.5 on Bedrock refuses "1h").
	if routed && upModel != model || h.fitter.Lessons.Lookup(upModel) != nil || h.fitter.CacheHourRefused(x.Upstream, upModel, body) {
		var cerr *codec.Error
		if body, adjusted, cerr = h.fitter.FitPassthrough(body, client, x.Upstream, upModel); cerr != nil {
			fail(w, x, client, cerr)
			return nil
		}
	}
	body = h.withPromptCacheKey(body, &dec, x.Upstream)
	if client != x.Upstream {
		betasToHeader(r, body, client)
	}
	edited, cerr := adaptSibling(body, client, x.Upstream, upModel, stream)
	if cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	if edited, err = bodyOnlyBetas(r, edited, x.Upstream); err != nil {
		fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
		return nil
	}
	x.Dropped = append(x.Dropped, h.filterBetas(r, x.Upstream)...)
	if client != x.Upstream {
		if edited, err = betasToBody(r, edited, x.Upstream); err != nil {
			fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
			return nil
		}
	}
	sent := setBody(r, edited)
	h.fitter.ReportDropped(w, x.Dropped)
	h.fitter.ReportAdjusted(w, upModel, adjusted)
	x.Tel.NoteEdits(adjusted, x.Dropped)
	if cerr := h.rewriteHeaders(r, client, x.Upstream, stream, h.credentialOf(x)); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	path, query := h.upstreamPath(x.Upstream, upModel, stream)
	setPath(r, path, query)
	if cerr := h.signUpstream(r, x, edited); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}

	upReq, cutoff := streams.WithCutoff(r, stream)
	defer cutoff.Release()
	// The exchange's copy of the model: model points into the body,
	// which an open stream gives back. The first writer carries the
	// teaching a retry needs, in its own allocation, as in translate.
	first := &firstPassthrough{Passthrough: writers.MakePassthrough(w, &h.writers, x, client, x.Model, stream)}
	pw := &first.Passthrough
	pw.Cutoff = cutoff
	// The writer takes the client's body over from ServeHTTP.
	pw.Sent, pw.ClientBody = sent, *held
	held.Buf = nil
	defer pw.ClientBody.Release()
	if routed && !h.upstreamModelInResponse && upModel != model {
		pw.Restore, _ = json.Marshal(model)
	}
	defer func() {
		// As in translate: an upstream body that breaks off, or one whose
		// reading the writer stopped (streams.Cutoff), makes reverse_proxy
		// abort; end the client's response properly instead, unless it
		// is already on its way raw.
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler || r.Context().Err() != nil || !pw.Recoverable() {
				panic(v)
			}
			pw.Finish(errUpstreamAborted)
		}
	}()
	first.teach = h.startTeaching(w, upModel, codec.Target{}, adjusted, edited, 0)
	teach := &first.teach
	pw.OnStream = teach
	defer teach.release()
	nextErr := h.callUpstream(x, next, pw, upReq)
	if retry := h.learnRetryPassthrough(upReq, pw, x, nextErr, teach); retry != nil {
		// The refusal taught a fix: send the request once more (learn.go).
		pw = retry
		nextErr = h.callUpstream(x, next, pw, upReq)
		h.learnedOutcome(pw.Status(), teach)
	}
	if !pw.Answered() {
		if nextErr == nil {
			nextErr = errors.New("upstream handler wrote no response")
		}
		h.writers.UpstreamFailed(w, client, nextErr, x)
		return nil
	}
	// reverse_proxy has logged any error; the response ends properly.
	pw.Finish(nextErr)
	return nil
}

// firstPassthrough is the first writer of a passthrough with the teaching
// its retry needs, in one allocation.
type firstPassthrough struct {
	writers.Passthrough
	teach teaching
}
