package anthropic

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// rules is what the model rules know of the Messages API: Anthropic's
// rules and the request fields they change.
var rules = codec.ModelRules{Provider: "anthropic", Params: codec.RuleParams{
	Reasoning: "thinking", Budget: "thinking.budget_tokens", Level: "output_config.effort",
	MaxTokens: "max_tokens", Temperature: "temperature", TopP: "top_p", TopK: "top_k", Stop: "stop_sequences",
	Presence: "presence_penalty", Frequency: "frequency_penalty", Messages: "messages", CacheTTL: "cache_control.ttl"}}

// FitBody rewrites, in body, the fields params name (the request
// parameters a model rule changed) from req, the body decoded and fitted
// to the routed model; every other byte is kept.
func (anthropicCodec) FitBody(_ codec.Protocol, body []byte, req *codec.Request, params []string, _ codec.Target) ([]byte, error) {
	return wire.FitParams(body, params, req, fitBody)
}

// fitBody rewrites the field param names.
func fitBody(edit *wire.BodyEdit, param string, req *codec.Request) {
	r, n := &req.Reasoning, &rules.Params
	switch param {
	case n.Reasoning, n.Budget:
		switch {
		case r.IsZero():
			edit.Delete("thinking")
		case r.Adaptive:
			edit.Set("thinking.type", "adaptive")
			edit.Delete("thinking.budget_tokens")
		case r.Budget.Set:
			edit.Set("thinking.type", "enabled")
			edit.Set("thinking.budget_tokens", r.Budget.Value)
		case r.Effort == mapping.EffortNone:
			// A model that thinks unless told not to.
			edit.Set("thinking.type", "disabled")
			edit.Delete("thinking.budget_tokens")
			edit.Delete("thinking.display")
		}
		if r.Effort > mapping.EffortNone {
			edit.Set("output_config.effort", r.Effort.String())
		} else {
			edit.Delete("output_config.effort")
		}
	case n.Level:
		if r.Effort > mapping.EffortNone {
			edit.Set("output_config.effort", r.Effort.String())
		} else {
			edit.Delete("output_config.effort")
		}
	case n.MaxTokens:
		edit.Set("max_tokens", req.MaxTokens.Value)
	case "tool_choice":
		edit.Delete("tool_choice")
	case n.Stop:
		edit.Delete(n.Stop)
	case n.CacheTTL:
		dropHourTTLs(edit)
	default:
		wire.PatchSampling(edit, param, req, "")
		if i, ok := strings.CutPrefix(param, n.Messages+"["); ok {
			edit.Delete(n.Messages + "." + strings.TrimSuffix(i, "]"))
		}
	}
}

// dropHourTTLs deletes every breakpoint's "ttl": "1h" (on system, message
// and nested tool-result blocks, tools, and the top-level one), leaving the
// default lifetime, for a model that offers no hour on its upstream.
func dropHourTTLs(edit *wire.BodyEdit) {
	var paths []string
	var blocks func(v gjson.Result, path string)
	// The body was decoded, so it is valid JSON and these are arrays.
	blocks = func(v gjson.Result, path string) {
		k := 0
		for _, member := range jsonx.Members(v.Raw, nil) {
			b := member.Result()
			at := path + "." + strconv.Itoa(k)
			k++
			if b.Get("cache_control.ttl").Str == "1h" {
				paths = append(paths, at+".cache_control.ttl")
			}
			if c := b.Get("content"); c.IsArray() {
				blocks(c, at+".content")
			}
		}
	}
	root := gjson.ParseBytes(edit.Body)
	if s := root.Get("system"); s.IsArray() {
		blocks(s, "system")
	}
	blocks(root.Get("tools"), "tools")
	k := 0
	for _, m := range jsonx.Members(root.Get("messages").Raw, nil) {
		if c := m.Result().Get("content"); c.IsArray() {
			blocks(c, "messages."+strconv.Itoa(k)+".content")
		}
		k++
	}
	if root.Get("cache_control.ttl").Str == "1h" {
		paths = append(paths, "cache_control.ttl")
	}
	for _, p := range paths {
		edit.Delete(p)
	}
}
