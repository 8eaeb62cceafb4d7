package caddymodule

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// The capability policy: what llmbridge does with a request field that a
// translation cannot carry. See codec.ErrorClass for the classes and the
// capability policy section of docs/configuration.md for the operator's
// view.
//
//   - safe (the default): hints (fields without effect on what the model
//     generates) are dropped and listed in Llmbridge-Dropped; capability
//     fields the translation cannot carry and unknown fields are rejected.
//   - strict: a request that would lose any field is rejected; only the
//     paths the operator listed with drop may be removed.
//   - lenient: capability fields are dropped as hints are (and listed),
//     where llmbridge can drop them without changing the rest of the
//     request; unknown fields and invalid values are still rejected.
//
// The policy applies to translated pairs; a passthrough pair (same wire
// family) forwards the body byte for byte, so nothing is lost there and
// only the drop setting edits it.

// dropConfigured applies the drop setting to the request body, noting the
// removed paths in x.
func (h *Handler) dropConfigured(body []byte, x *observe.Exchange) ([]byte, *codec.Error) {
	if len(h.drops) == 0 {
		return body, nil
	}
	body, dropped, err := policy.ApplyDrops(body, h.drops)
	// The paths are fresh strings, never aliasing the pooled body.
	x.Dropped = dropped
	return body, err
}

// allowedByDrop reports whether path is one the drop setting names.
func (h *Handler) allowedByDrop(path string) bool {
	for i := range h.drops {
		if h.drops[i].Matches(path) {
			return true
		}
	}
	return false
}

// reportDropped publishes dropped paths: the Llmbridge-Dropped header, a
// debug log line (paths only, never values) and the dropped_fields_total
// metric.
func (h *Handler) reportDropped(w http.ResponseWriter, dropped []string) {
	if len(dropped) == 0 {
		return
	}
	h.metrics.RecordDropped(dropped)
	w.Header().Set("Llmbridge-Dropped", observe.HeaderList(dropped))
	h.logger.Debug("dropped fields", zap.Strings("fields", dropped), zap.String("on_unsupported", h.policy.String()))
}

// decodeRequest decodes the client's body under the capability policy.
// Under lenient, a capability error's field is removed from the body and
// the body decoded again, at most maxPolicyRounds times. The paths the
// drop setting and the lenient policy removed come first in req.Dropped.
func (h *Handler) decodeRequest(client codec.Protocol, body []byte, req *codec.Request, x *observe.Exchange) *codec.Error {
	var lenient []string
	err := codec.DecodeRequest(client, body, req)
	for round := 0; err != nil && h.policy == policy.Lenient && round < policy.MaxRounds; round++ {
		e := codec.AsError(err)
		target := e.Capability.Element
		if e.Class != codec.ClassCapability || target == "" {
			break
		}
		sp := policy.SJSONPath(target)
		if !gjson.GetBytes(body, sp).Exists() {
			break
		}
		nb, derr := sjson.DeleteBytes(body, sp)
		if derr != nil {
			break
		}
		body = nb
		lenient = append(lenient, target)
		req.Reset()
		err = codec.DecodeRequest(client, body, req)
	}
	if err != nil {
		return h.explain(codec.AsError(err), true, nil)
	}
	if n := len(x.Dropped) + len(lenient); n > 0 {
		all := make([]string, 0, n+len(req.Dropped))
		all = append(append(append(all, x.Dropped...), lenient...), req.Dropped...)
		req.Dropped = all
	}
	return nil
}

// encodeRequest encodes req toward the upstream under the capability
// policy. Under lenient, a capability error's field is dropped with
// Request.Drop and req encoded again, at most maxPolicyRounds times; the
// dropped path (the encoder's canonical name, such as "top_k" or
// "messages[2].parts[0]") is listed in req.Dropped. Under strict, a
// request that lost any field the drop setting does not name is rejected.
func (h *Handler) encodeRequest(dst []byte, upstream codec.Protocol, req *codec.Request, opts codec.EncodeOptions, decoded int) ([]byte, *codec.Error) {
	n := len(req.Dropped)
	out, err := codec.AppendRequest(dst, upstream, req, opts)
	for round := 0; err != nil && h.policy == policy.Lenient && round < policy.MaxRounds; round++ {
		e := codec.AsError(err)
		if e.Class != codec.ClassCapability || !req.Drop(e.Capability) {
			break
		}
		// The failed attempt's own hints are listed again by the next.
		req.Dropped = append(req.Dropped[:n], e.Param)
		n = len(req.Dropped)
		out, err = codec.AppendRequest(out[:0], upstream, req, opts)
	}
	if err != nil {
		return out, h.explain(codec.AsError(err), false, req)
	}
	if h.policy == policy.Strict {
		for i, p := range req.Dropped {
			if h.allowedByDrop(p) {
				continue
			}
			return out, h.strictError(p, i < decoded)
		}
	}
	return out, nil
}

// strictError rejects a request under on_unsupported strict because field
// path would be dropped. Decoders list client body paths, which the drop
// setting can name; encoders list canonical names.
func (h *Handler) strictError(path string, clientPath bool) *codec.Error {
	param, note, _ := strings.Cut(path, " (")
	what := "field"
	if note != "" {
		what = strings.TrimSuffix(note, ")") + " content"
	}
	msg := "this " + what + " has no effect on or no equivalent in the upstream protocol and would be dropped; on_unsupported strict rejects the request (on_unsupported safe would drop it"
	if clientPath && note == "" {
		msg += ", as would drop " + policy.WildcardPath(param)
	}
	return &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: param, Class: codec.ClassHint, Message: msg + ")"}
}

// explain adds to a codec's rejection the setting that would let the
// request through: on_unsupported lenient for a capability field it can
// drop, drop <path> for a field in the client's body. decodeSide says
// whether the error's path is a client body path; req, for an encoder's
// error, is the request, which is discarded (Drop is tried on it).
func (h *Handler) explain(e *codec.Error, decodeSide bool, req *codec.Request) *codec.Error {
	var hint string
	switch e.Class {
	case codec.ClassCapability:
		switch {
		case h.policy == policy.Lenient:
			hint = "on_unsupported lenient cannot drop it"
		case decodeSide && e.Capability.Element != "":
			hint = "on_unsupported lenient would drop it"
			if p := policy.WildcardPath(e.Param); !strings.HasSuffix(p, "]") && e.Capability.Element == e.Param {
				hint += ", as would drop " + p
			}
		case !decodeSide && req != nil && req.Drop(e.Capability):
			hint = "on_unsupported lenient would drop it"
		}
	case codec.ClassUnknownField:
		if decodeSide && e.Param != "" && !strings.HasPrefix(e.Param, ".") {
			hint = "drop " + policy.WildcardPath(e.Param) + " would remove it before translation"
		}
	}
	if hint == "" {
		return e
	}
	c := *e
	c.Message += " (" + hint + ")"
	return &c
}

// failPolicy answers a rejection of the codecs or the policy and labels
// the errors_total metric with its class (unsupported_field,
// unknown_field, policy_strict) rather than its kind. Anthropic and Google
// error bodies have no param slot, so for their clients the message starts
// with the field path, as OpenAI clients read it from param.
func failPolicy(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error) {
	if e.Param != "" && !p.Descriptor().ErrorParam {
		c := *e
		c.Message = e.Error()
		e = &c
	}
	fail(w, x, p, e)
	switch e.Class {
	case codec.ClassCapability:
		x.ErrReason = "unsupported_field"
	case codec.ClassUnknownField:
		x.ErrReason = "unknown_field"
	case codec.ClassHint:
		x.ErrReason = "policy_strict"
	}
}
