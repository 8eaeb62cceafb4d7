package chat

import (
	"bytes"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// rules is what the model rules know of Chat Completions: OpenAI's
// rules, or a dialect's, and the request fields they change.
var rules = codec.ModelRules{Provider: "openai", API: "chat", Params: codec.RuleParams{
	Reasoning: "reasoning_effort", Budget: "reasoning_effort", Level: "reasoning_effort",
	MaxTokens: "max_completion_tokens", Temperature: "temperature", TopP: "top_p", TopK: "top_k", Stop: "stop",
	Presence: "presence_penalty", Frequency: "frequency_penalty", Messages: "messages"}}

// FitBody rewrites, in body, the fields params name (the request
// parameters a model rule changed) from req, the body decoded and fitted
// to the routed model; every other byte is kept.
func (chatCodec) FitBody(_ codec.Protocol, body []byte, req *codec.Request, params []string, _ codec.Target) ([]byte, error) {
	return wire.FitParams(body, params, req, fitBody)
}

// fitBody rewrites the field param names.
func fitBody(edit *wire.BodyEdit, param string, req *codec.Request) {
	n := &rules.Params
	switch param {
	case n.Reasoning:
		if e := req.Reasoning.Effort; e != mapping.EffortUnset {
			edit.Set("reasoning_effort", e.String())
		} else {
			edit.Delete("reasoning_effort")
		}
	case n.MaxTokens:
		// The client may have used either name.
		if bytes.Contains(edit.Body, []byte(`"max_tokens"`)) {
			edit.Set("max_tokens", req.MaxTokens.Value)
		}
		if bytes.Contains(edit.Body, []byte(`"max_completion_tokens"`)) {
			edit.Set("max_completion_tokens", req.MaxTokens.Value)
		}
	case n.Stop:
		edit.Delete(n.Stop)
	default:
		wire.PatchSampling(edit, param, req, "")
	}
}
