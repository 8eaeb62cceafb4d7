package caddymodule

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
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

// unsupportedPolicy is the on_unsupported level.
type unsupportedPolicy uint8

const (
	policySafe unsupportedPolicy = iota
	policyStrict
	policyLenient
)

// parsePolicy parses an on_unsupported value; "" is safe.
func parsePolicy(s string) (unsupportedPolicy, error) {
	switch s {
	case "", "safe":
		return policySafe, nil
	case "strict":
		return policyStrict, nil
	case "lenient":
		return policyLenient, nil
	}
	return 0, fmt.Errorf("on_unsupported must be strict, safe or lenient, got %q", s)
}

// maxPolicyRounds bounds how often a lenient request is decoded or encoded
// again after dropping a field, and how often a drop path is searched
// again in a body with repeated keys.
const maxPolicyRounds = 32

// dropSegment is one step of a drop path: an object key, an array index,
// or any array index.
type dropSegment struct {
	key   string // the object key, or "" for an index step
	index int    // the array index; -1 for [*]
}

// dropPath is a compiled drop setting entry.
type dropPath struct {
	text string
	segs []dropSegment
}

// compileDropPath parses a drop path: object keys separated by dots, each
// optionally followed by array steps [n] or [*] ("tools[*].cache_control",
// "metadata", "messages[*].content[*].citations"). Keys consist of
// letters, digits, '_' and '-'; the path starts with a key, because every
// request body is an object.
func compileDropPath(s string) (dropPath, error) {
	p := dropPath{text: s}
	if s == "" {
		return p, fmt.Errorf("empty drop path")
	}
	i := 0
	for i < len(s) {
		start := i
		for i < len(s) && isDropKeyByte(s[i]) {
			i++
		}
		if i == start {
			return p, fmt.Errorf("drop path %q: expected a field name at offset %d", s, start)
		}
		p.segs = append(p.segs, dropSegment{key: s[start:i]})
		for i < len(s) && s[i] == '[' {
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return p, fmt.Errorf("drop path %q: unclosed '['", s)
			}
			idx := s[i+1 : i+end]
			switch n, err := strconv.Atoi(idx); {
			case idx == "*":
				p.segs = append(p.segs, dropSegment{index: -1})
			case err == nil && n >= 0 && idx[0] != '+':
				p.segs = append(p.segs, dropSegment{index: n})
			default:
				return p, fmt.Errorf("drop path %q: array step [%s] must be [*] or [n]", s, idx)
			}
			i += end + 1
		}
		if i < len(s) {
			if s[i] != '.' || i == len(s)-1 {
				return p, fmt.Errorf("drop path %q: unexpected %q at offset %d (write key.key, key[*] or key[n])", s, s[i], i)
			}
			i++
		}
	}
	return p, nil
}

func isDropKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// matches reports whether the concrete field path (as codecs write them,
// "tools[2].cache_control") is one this drop path names.
func (p *dropPath) matches(path string) bool {
	for k, seg := range p.segs {
		if seg.key != "" {
			if k > 0 {
				if path == "" || path[0] != '.' {
					return false
				}
				path = path[1:]
			}
			rest, ok := strings.CutPrefix(path, seg.key)
			if !ok || rest != "" && rest[0] != '.' && rest[0] != '[' {
				return false
			}
			path = rest
			continue
		}
		if path == "" || path[0] != '[' {
			return false
		}
		end := strings.IndexByte(path, ']')
		if end < 0 {
			return false
		}
		if seg.index >= 0 && path[1:end] != strconv.Itoa(seg.index) {
			return false
		}
		path = path[end+1:]
	}
	return path == ""
}

// expand appends the concrete paths in body that p names, as pairs of the
// display path ("tools[0].cache_control") and the sjson path
// ("tools.0.cache_control").
func (p *dropPath) expand(v gjson.Result, k int, display, sj string, out [][2]string) [][2]string {
	if k == len(p.segs) {
		return append(out, [2]string{display, sj})
	}
	seg := p.segs[k]
	if seg.key != "" {
		if !v.IsObject() {
			return out
		}
		c := v.Get(seg.key)
		if !c.Exists() {
			return out
		}
		if display != "" {
			display += "."
			sj += "."
		}
		return p.expand(c, k+1, display+seg.key, sj+seg.key, out)
	}
	if !v.IsArray() {
		return out
	}
	i := 0
	v.ForEach(func(_, c gjson.Result) bool {
		if seg.index < 0 || seg.index == i {
			n := strconv.Itoa(i)
			out = p.expand(c, k+1, display+"["+n+"]", sj+"."+n, out)
		}
		i++
		return seg.index < 0 || i <= seg.index
	})
	return out
}

// applyDrops removes every field the drop setting names from body and
// returns the new body and the removed paths. A path that matches nothing
// is fine. Every occurrence is removed, also of a key repeated in one
// object (a decoder reads all of them).
func applyDrops(body []byte, paths []dropPath) ([]byte, []string, *codec.Error) {
	var dropped []string
	var found [][2]string
	for i := range paths {
		p := &paths[i]
		for round := 0; ; round++ {
			found = p.expand(gjson.ParseBytes(body), 0, "", "", found[:0])
			if len(found) == 0 {
				break
			}
			if round == maxPolicyRounds {
				return body, dropped, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: found[0][0],
					Message: "field occurs too often to be dropped (drop " + p.text + ")"}
			}
			// From the last to the first, so that deleting an array
			// element does not shift the indices still to be deleted.
			for j := len(found) - 1; j >= 0; j-- {
				nb, err := sjson.DeleteBytes(body, found[j][1])
				if err != nil {
					return body, dropped, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: found[j][0],
						Message: "field could not be dropped (drop " + p.text + ")"}
				}
				body = nb
			}
			for _, f := range found {
				dropped = append(dropped, f[0])
			}
		}
	}
	return body, dropped, nil
}

// dropConfigured applies the drop setting to the request body, noting the
// removed paths in x.
func (h *Handler) dropConfigured(body []byte, x *observe.Exchange) ([]byte, *codec.Error) {
	if len(h.drops) == 0 {
		return body, nil
	}
	body, dropped, err := applyDrops(body, h.drops)
	// The paths are fresh strings, never aliasing the pooled body.
	x.Dropped = dropped
	return body, err
}

// allowedByDrop reports whether path is one the drop setting names.
func (h *Handler) allowedByDrop(path string) bool {
	for i := range h.drops {
		if h.drops[i].matches(path) {
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
	w.Header().Set("Llmbridge-Dropped", droppedHeader(dropped))
	h.logger.Debug("dropped fields", zap.Strings("fields", dropped), zap.String("on_unsupported", h.policyName()))
}

// policyName is the on_unsupported level's name.
func (h *Handler) policyName() string {
	switch h.policy {
	case policyStrict:
		return "strict"
	case policyLenient:
		return "lenient"
	}
	return "safe"
}

// sjsonPath converts a field path ("messages[3].content[1]") into an sjson
// path ("messages.3.content.1"), escaping the characters sjson treats
// specially in keys.
func sjsonPath(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '[':
			if i > 0 {
				b.WriteByte('.')
			}
		case ']':
		case '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%', ':':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// decodeRequest decodes the client's body under the capability policy.
// Under lenient, a capability error's field is removed from the body and
// the body decoded again, at most maxPolicyRounds times. The paths the
// drop setting and the lenient policy removed come first in req.Dropped.
func (h *Handler) decodeRequest(client codec.Protocol, body []byte, req *codec.Request, x *observe.Exchange) *codec.Error {
	var lenient []string
	err := codec.DecodeRequest(client, body, req)
	for round := 0; err != nil && h.policy == policyLenient && round < maxPolicyRounds; round++ {
		e := asCodecError(err)
		target := e.Capability.Element
		if e.Class != codec.ClassCapability || target == "" {
			break
		}
		sp := sjsonPath(target)
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
		return h.explain(asCodecError(err), true, nil)
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
	for round := 0; err != nil && h.policy == policyLenient && round < maxPolicyRounds; round++ {
		e := asCodecError(err)
		if e.Class != codec.ClassCapability || !req.Drop(e.Capability) {
			break
		}
		// The failed attempt's own hints are listed again by the next.
		req.Dropped = append(req.Dropped[:n], e.Param)
		n = len(req.Dropped)
		out, err = codec.AppendRequest(out[:0], upstream, req, opts)
	}
	if err != nil {
		return out, h.explain(asCodecError(err), false, req)
	}
	if h.policy == policyStrict {
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
		msg += ", as would drop " + wildcardPath(param)
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
		case h.policy == policyLenient:
			hint = "on_unsupported lenient cannot drop it"
		case decodeSide && e.Capability.Element != "":
			hint = "on_unsupported lenient would drop it"
			if p := wildcardPath(e.Param); !strings.HasSuffix(p, "]") && e.Capability.Element == e.Param {
				hint += ", as would drop " + p
			}
		case !decodeSide && req != nil && req.Drop(e.Capability):
			hint = "on_unsupported lenient would drop it"
		}
	case codec.ClassUnknownField:
		if decodeSide && e.Param != "" && !strings.HasPrefix(e.Param, ".") {
			hint = "drop " + wildcardPath(e.Param) + " would remove it before translation"
		}
	}
	if hint == "" {
		return e
	}
	c := *e
	c.Message += " (" + hint + ")"
	return &c
}

// wildcardPath replaces the array indices of a field path with [*].
func wildcardPath(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '[' {
			if end := strings.IndexByte(p[i:], ']'); end > 0 {
				b.WriteString("[*]")
				i += end
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
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
