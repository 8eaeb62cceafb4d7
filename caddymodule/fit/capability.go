package fit

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

// ApplyDrops applies the drop setting to a request body, before anything
// else reads it, and returns the paths it removed (fresh strings, never
// aliasing the body).
func (f *Fitter) ApplyDrops(body []byte) ([]byte, []string, *codec.Error) {
	if len(f.Drops) == 0 {
		return body, nil, nil
	}
	return policy.ApplyDrops(body, f.Drops)
}

// allowedByDrop reports whether path is one the drop setting names.
func (f *Fitter) allowedByDrop(path string) bool {
	for i := range f.Drops {
		if f.Drops[i].Matches(path) {
			return true
		}
	}
	return false
}

// ReportDropped publishes dropped paths: the Llmbridge-Dropped header, a
// debug log line (paths only, never values) and the dropped_fields_total
// metric.
func (f *Fitter) ReportDropped(w http.ResponseWriter, dropped []string) {
	if len(dropped) == 0 {
		return
	}
	f.Metrics.RecordDropped(dropped)
	w.Header().Set("Llmbridge-Dropped", observe.HeaderList(dropped))
	f.Logger.Debug("dropped fields", zap.Strings("fields", dropped), zap.String("on_unsupported", f.Policy.String()))
}

// DecodeRequest decodes the client's body under the capability policy.
// Under lenient, a capability error's field is removed from the body and
// the body decoded again, at most policy.MaxRounds times. The paths the
// drop setting removed (dropped, from ApplyDrops) and the lenient policy
// removed come first in req.Dropped.
func (f *Fitter) DecodeRequest(client codec.Protocol, body []byte, req *codec.Request, dropped []string) *codec.Error {
	var lenient []string
	err := codec.DecodeRequest(client, body, req)
	for round := 0; err != nil && f.Policy == policy.Lenient && round < policy.MaxRounds; round++ {
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
		return f.explain(codec.AsError(err), true, nil)
	}
	if n := len(dropped) + len(lenient); n > 0 {
		all := make([]string, 0, n+len(req.Dropped))
		all = append(append(append(all, dropped...), lenient...), req.Dropped...)
		req.Dropped = all
	}
	return nil
}

// EncodeRequest encodes req toward the upstream under the capability
// policy. Under lenient, a capability error's field is dropped with
// Request.Drop and req encoded again, at most policy.MaxRounds times; the
// dropped path (the encoder's canonical name, such as "top_k" or
// "messages[2].parts[0]") is listed in req.Dropped. Under strict, a
// request that lost any field the drop setting does not name is rejected.
func (f *Fitter) EncodeRequest(dst []byte, upstream codec.Protocol, req *codec.Request, opts codec.EncodeOptions, decoded int) ([]byte, *codec.Error) {
	n := len(req.Dropped)
	out, err := codec.AppendRequest(dst, upstream, req, opts)
	for round := 0; err != nil && f.Policy == policy.Lenient && round < policy.MaxRounds; round++ {
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
		return out, f.explain(codec.AsError(err), false, req)
	}
	if f.Policy == policy.Strict {
		for i, p := range req.Dropped {
			if f.allowedByDrop(p) {
				continue
			}
			return out, f.strictError(p, i < decoded)
		}
	}
	return out, nil
}

// strictError rejects a request under on_unsupported strict because field
// path would be dropped. Decoders list client body paths, which the drop
// setting can name; encoders list canonical names.
func (f *Fitter) strictError(path string, clientPath bool) *codec.Error {
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
func (f *Fitter) explain(e *codec.Error, decodeSide bool, req *codec.Request) *codec.Error {
	var hint string
	switch e.Class {
	case codec.ClassCapability:
		switch {
		case f.Policy == policy.Lenient:
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
