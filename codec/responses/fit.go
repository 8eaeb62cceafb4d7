package responses

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// rules is what the model rules know of the Responses API: OpenAI's
// rules, or a dialect's, and the request fields they change.
var rules = codec.ModelRules{Provider: "openai", Params: codec.RuleParams{
	Reasoning: "reasoning.effort", Budget: "reasoning.effort", Level: "reasoning.effort",
	MaxTokens: "max_output_tokens", Temperature: "temperature", TopP: "top_p", TopK: "top_k", Stop: "stop",
	Presence: "presence_penalty", Frequency: "frequency_penalty", Messages: "messages"}}

// FitBody rewrites, in body, the fields params name (the request
// parameters a model rule changed) from req, the body decoded and fitted
// to the routed model; every other byte is kept.
func (responsesCodec) FitBody(_ codec.Protocol, body []byte, req *codec.Request, params []string, _ codec.Target) ([]byte, error) {
	return wire.FitParams(body, params, req, fitBody)
}

// fitBody rewrites the field param names.
func fitBody(edit *wire.BodyEdit, param string, req *codec.Request) {
	n := &rules.Params
	switch param {
	case n.Reasoning:
		if e := req.Reasoning.Effort; e != mapping.EffortUnset {
			edit.Set("reasoning.effort", e.String())
		} else if req.Reasoning.IsZero() {
			// Not a reasoning model: no reasoning settings at all.
			edit.Delete("reasoning")
		} else {
			edit.Delete("reasoning.effort")
		}
	case n.MaxTokens:
		edit.Set("max_output_tokens", req.MaxTokens.Value)
	default:
		wire.PatchSampling(edit, param, req, "")
	}
}
