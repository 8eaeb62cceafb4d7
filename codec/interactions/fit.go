package interactions

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// rules is what the model rules know of the Interactions API: Google's
// rules (the Gemini rows of the rule table), and the request fields they
// change, named as within generation_config. Its one reasoning field,
// thinking_level, stands for the setting, the budget and the level.
// The API has no top_k or penalties: the names are those a rule would
// remove, which the decoder never sets.
var rules = codec.ModelRules{Provider: "google", Params: codec.RuleParams{
	Reasoning: "thinking_level", Budget: "thinking_level", Level: "thinking_level",
	MaxTokens: "max_output_tokens", Temperature: "temperature", TopP: "top_p", TopK: "top_k", Stop: "stop_sequences",
	Presence: "presence_penalty", Frequency: "frequency_penalty", Messages: "input"}}

// FitBody rewrites, in body, the fields params name (the request
// parameters a model rule changed) from req, the body decoded and fitted
// to the routed model; every other byte is kept.
func (interactionsCodec) FitBody(_ codec.Protocol, body []byte, req *codec.Request, params []string, _ codec.Target) ([]byte, error) {
	return wire.FitParams(body, params, req, fitBody)
}

// fitBody rewrites the field param names under generation_config.
func fitBody(edit *wire.BodyEdit, param string, req *codec.Request) {
	const gc = "generation_config."
	switch param {
	case rules.Params.Level:
		level := thinkingLevel(effortOf(&req.Reasoning, mapping.DefaultEffortBudgets))
		if level == "" {
			edit.Delete(gc + param)
		} else {
			edit.Set(gc+param, level)
		}
	case rules.Params.MaxTokens:
		edit.Set(gc+param, req.MaxTokens.Value)
	case rules.Params.Stop:
		edit.Delete(gc + param)
	default:
		wire.PatchSampling(edit, param, req, gc)
	}
}
