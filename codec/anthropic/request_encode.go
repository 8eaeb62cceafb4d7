package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

// appendRequest appends req as a Messages request body. Fields go
// in a fixed order; only fields that are set are written, except max_tokens,
// which Anthropic requires.
func appendRequest(dst []byte, req *codec.Request, opts *codec.EncodeOptions, p codec.Protocol) ([]byte, *codec.Error) {
	switch {
	case req.PresencePenalty.Set:
		return dst, wire.CannotEncode(p, "presence_penalty", "presence_penalty", codec.Capability{Kind: codec.CapPresencePenalty})
	case req.FrequencyPenalty.Set:
		return dst, wire.CannotEncode(p, "frequency_penalty", "frequency_penalty", codec.Capability{Kind: codec.CapFrequencyPenalty})
	}
	if req.Verbosity != "" {
		return dst, wire.CannotEncode(p, "verbosity", "output verbosity", codec.Capability{Kind: codec.CapVerbosity})
	}
	plan, err := planThinking(req, opts, p)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	if version := version(p); version != "" {
		// The version is always the cloud's own here; a same-family
		// passthrough elsewhere keeps the client's.
		dst = append(dst, `{"anthropic_version":`...)
		dst = jsonx.AppendString(dst, version)
	} else {
		model := wire.EncodeModel(opts, req)
		if model == "" {
			return dst, codec.InvalidRequest("model", "is required")
		}
		dst = append(dst, `{"model":`...)
		dst = jsonx.AppendString(dst, model)
	}
	dst = append(dst, `,"max_tokens":`...)
	dst = jsonx.AppendInt(dst, plan.MaxTokens.Value)
	var cachePlan wire.CachePlan
	cache := wire.PlanCache(req, opts.Cache, opts.Target.Cache, &cachePlan)
	if p == codec.BedrockAnthropic {
		// Bedrock's InvokeModel refuses a top-level cache_control.
		cache.AutoOnLastBlock(req)
	}
	if dst, err = appendSystem(dst, req, p, cache); err != nil {
		return dst[:start], err
	}
	if dst, err = appendMessages(dst, req, p, cache); err != nil {
		return dst[:start], err
	}
	dst = appendSampling(dst, req, p)
	if dst, err = appendTools(dst, req, p, cache); err != nil {
		return dst[:start], err
	}
	if req.Cache.Auto != codec.CacheNone {
		// Automatic caching: Anthropic places this breakpoint on the
		// last block it can cache.
		dst = appendCacheControl(dst, cache.Auto(req))
	}
	if req.User != "" {
		dst = append(dst, `,"metadata":{"user_id":`...)
		dst = jsonx.AppendString(dst, req.User)
		dst = append(dst, '}')
	}
	if plan.Type != wire.ThinkingUnset {
		dst = append(dst, `,"thinking":`...)
		dst = wire.AppendThinking(dst, &plan)
	}
	if dst, err = appendOutputConfig(dst, req, &plan, p); err != nil {
		return dst[:start], err
	}
	wire.DropPromptCache(req)
	// Anthropic has no seed; best-effort determinism is a mere hint.
	if req.Seed.Set {
		req.Dropped = append(req.Dropped, "seed")
	}
	return append(dst, '}'), nil
}

// thinkingFields are where Anthropic's Messages take Claude's
// thinking settings.
var thinkingFields = wire.ThinkingFields{Display: "thinking.display", Budget: "thinking.budget_tokens",
	Effort: "output_config.effort", MaxTokens: "max_tokens"}

// planThinking converts req.Reasoning by Claude's thinking rules
// (wire.PlanClaudeThinking); max_tokens, which Anthropic requires, is
// always set.
func planThinking(req *codec.Request, opts *codec.EncodeOptions, p codec.Protocol) (wire.ClaudeThinking, *codec.Error) {
	plan, err := wire.PlanClaudeThinking(req, opts, p, &thinkingFields)
	if !plan.MaxTokens.Set {
		plan.MaxTokens = codec.OptInt{Value: wire.EncodeMaxTokens(opts, req), Set: true}
	}
	return plan, err
}

// appendOutputConfig appends output_config: the effort of the
// thinking plan and the structured output format. Anthropic takes a JSON
// schema only; any-JSON output (json_object) cannot be asked for. The
// schema's name has no Anthropic counterpart and no effect; Anthropic
// always enforces the schema, which is what strict asks for; a description
// is a hint to the model that Anthropic cannot take, and is recorded as
// dropped.
func appendOutputConfig(dst []byte, req *codec.Request, plan *wire.ClaudeThinking, p codec.Protocol) ([]byte, *codec.Error) {
	f := &req.Format
	switch f.Kind {
	case codec.FormatText:
		if plan.Effort == "" {
			return dst, nil
		}
	case codec.FormatJSONObject:
		return dst, wire.CannotEncode(p, "output_config.format", "JSON output without a schema (json_object)", codec.Capability{Kind: codec.CapFormat})
	case codec.FormatJSONSchema:
		if f.Schema == "" || !isObject(f.Schema) {
			return dst, codec.InvalidRequest("output_config.format.schema", "must be a JSON object")
		}
	default:
		return dst, wire.CannotEncode(p, "output_config.format", "output format", codec.Capability{Kind: codec.CapFormat})
	}
	dst = append(dst, `,"output_config":{`...)
	if plan.Effort != "" {
		dst = append(dst, `"effort":"`...)
		dst = append(dst, plan.Effort...)
		dst = append(dst, '"')
		if f.Kind == codec.FormatJSONSchema {
			dst = append(dst, ',')
		}
	}
	if f.Kind == codec.FormatJSONSchema {
		dst = append(dst, `"format":{"type":"json_schema","schema":`...)
		dst = append(dst, f.Schema...)
		dst = append(dst, '}')
		if f.Description != "" {
			req.Dropped = append(req.Dropped, "format.description")
		}
	}
	return append(dst, '}'), nil
}

// appendSampling appends the sampling parameters, stop sequences
// and the stream flag.
func appendSampling(dst []byte, req *codec.Request, p codec.Protocol) []byte {
	if req.Temperature.Set {
		dst = append(dst, `,"temperature":`...)
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = append(dst, `,"top_p":`...)
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.TopK.Set {
		dst = append(dst, `,"top_k":`...)
		dst = jsonx.AppendInt(dst, req.TopK.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = append(dst, `,"stop_sequences":`...)
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	// Bedrock streams by its path alone and rejects a stream member
	// ("extraneous key [stream] is not permitted").
	if req.Stream && p != codec.BedrockAnthropic {
		dst = append(dst, `,"stream":true`...)
	}
	return dst
}

// appendSystem appends the system prompt: req.System followed by
// the system and developer messages of the conversation, in order, because
// Anthropic only has a top-level system prompt. A single text is written as
// a string, several as text blocks; empty texts are skipped (Anthropic
// rejects empty text blocks) and no text at all writes no system field.
func appendSystem(dst []byte, req *codec.Request, p codec.Protocol, cache *wire.CachePlan) ([]byte, *codec.Error) {
	n, bad := textParts(req.System)
	if bad >= 0 {
		return dst, wire.CannotEncode(p, wire.IndexPath("system", bad), "content part type", codec.PartCapability(-1, bad))
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if !wire.IsSystemRole(m.Role) {
			continue
		}
		k, bad := textParts(m.Parts)
		if bad >= 0 {
			return dst, wire.CannotEncode(p, wire.IndexPath(wire.IndexPath("messages", i)+".content", bad), "content part type", codec.PartCapability(i, bad))
		}
		n += k
	}
	if n == 0 {
		return dst, nil
	}
	dst = append(dst, `,"system":`...)
	if n == 1 && cache == nil {
		return jsonx.AppendString(dst, firstSystemText(req)), nil
	}
	dst = append(dst, '[')
	dst, more := appendTextBlocks(dst, req.System, false, cache)
	for i := range req.Messages {
		if m := &req.Messages[i]; wire.IsSystemRole(m.Role) {
			dst, more = appendTextBlocks(dst, m.Parts, more, cache)
		}
	}
	return append(dst, ']'), nil
}

// firstSystemText returns the first non-empty system text, from
// req.System or a later system or developer message.
func firstSystemText(req *codec.Request) string {
	if t := firstText(req.System); t != "" {
		return t
	}
	for i := range req.Messages {
		if m := &req.Messages[i]; wire.IsSystemRole(m.Role) {
			if t := firstText(m.Parts); t != "" {
				return t
			}
		}
	}
	return ""
}

// firstText returns the first non-empty text of ps.
func firstText(ps []codec.Part) string {
	for i := range ps {
		if t, _ := partText(&ps[i]); t != "" {
			return t
		}
	}
	return ""
}

// partText returns the text a part contributes as an Anthropic text
// block, and false for a part type Anthropic cannot carry. A refusal becomes
// plain text: Anthropic has no refusal block, and a refusal in assistant
// history is replayed as its text, unchanged.
func partText(p *codec.Part) (string, bool) {
	switch p.Type {
	case codec.PartText, codec.PartRefusal:
		return p.TextValue(), true
	}
	return "", false
}

// isText reports whether p becomes a text block (partText), without
// reading its text.
func isText(p *codec.Part) bool { return p.Type == codec.PartText || p.Type == codec.PartRefusal }

// textParts returns the number of parts of ps that become text
// blocks (non-empty texts) and the index of the first part Anthropic cannot
// carry, or -1.
func textParts(ps []codec.Part) (n, unsupported int) {
	for i := range ps {
		if !isText(&ps[i]) {
			return n, i
		}
		if ps[i].HasText() {
			n++
		}
	}
	return n, -1
}

// appendTextBlocks appends the non-empty texts of ps as text blocks,
// preceded by a comma when comma is true, and reports whether a block has
// been written (so that the next block needs a comma), with the
// breakpoints of cache. The parts must have been checked with
// textParts.
func appendTextBlocks(dst []byte, ps []codec.Part, comma bool, cache *wire.CachePlan) ([]byte, bool) {
	for i := range ps {
		if !isText(&ps[i]) || !ps[i].HasText() {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"text","text":`...)
		dst = wire.AppendPartText(dst, &ps[i])
		dst = appendCacheControl(dst, cache.System(&ps[i]))
		dst = append(dst, '}')
		comma = true
	}
	return dst, comma
}
