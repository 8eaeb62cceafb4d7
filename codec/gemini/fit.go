package gemini

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// rules is what the model rules know of the Gemini API: Google's rules
// and the request fields they change, named as within generationConfig.
var rules = codec.ModelRules{Provider: "google", Params: codec.RuleParams{
	Reasoning: "thinkingConfig", Budget: "thinkingConfig.thinkingBudget", Level: "thinkingConfig.thinkingLevel",
	MaxTokens: "maxOutputTokens", Temperature: "temperature", TopP: "topP", TopK: "topK", Stop: "stopSequences",
	Presence: "presencePenalty", Frequency: "frequencyPenalty", Messages: "contents"}}

// FitBody rewrites, in body, the fields params name (the request
// parameters a model rule changed) from req, the body decoded and fitted
// to the routed model; every other byte is kept.
// The thinking setting is then written in the form the model takes, and
// toward a model that requires signed function calls each model turn's
// first call gets one.
func (geminiCodec) FitBody(_ codec.Protocol, body []byte, req *codec.Request, params []string, target codec.Target) ([]byte, error) {
	out, err := wire.FitParams(body, params, req, fitBody)
	if err == nil {
		out, err = fitThinking(out, req, target)
	}
	if err == nil && target.SignedFunctionCalls {
		out, err = signCalls(out)
	}
	return out, err
}

// fitBody rewrites the field param names.
func fitBody(edit *wire.BodyEdit, param string, req *codec.Request) {
	const tc = "generationConfig.thinkingConfig"
	r, n := &req.Reasoning, &rules.Params
	switch param {
	case n.Reasoning:
		edit.Delete(tc)
	case n.Budget:
		edit.Set(tc+".thinkingBudget", r.Budget.Value)
	case n.Level:
		edit.Delete(tc + ".thinkingBudget")
		edit.Set(tc+".thinkingLevel", strings.ToUpper(r.Effort.String()))
	case n.MaxTokens:
		edit.Set("generationConfig.maxOutputTokens", req.MaxTokens.Value)
	case n.Stop:
		edit.Delete("generationConfig.stopSequences")
	default:
		wire.PatchSampling(edit, param, req, "generationConfig.")
		if i, ok := strings.CutPrefix(param, n.Messages+"["); ok {
			// A trailing model turn the model does not take.
			edit.Delete(n.Messages + "." + strings.TrimSuffix(i, "]"))
		}
	}
}

// fitThinking writes a Gemini thinking setting in the form the
// model takes: a thinkingLevel toward a model that takes levels, a
// thinkingBudget toward one that takes budgets (the fitted request has it
// as an effort or a budget), never both.
func fitThinking(body []byte, req *codec.Request, target codec.Target) ([]byte, error) {
	const tc = "generationConfig.thinkingConfig"
	tcv := gjson.GetBytes(body, tc)
	level, budget := tcv.Get("thinkingLevel"), tcv.Get("thinkingBudget")
	r := &req.Reasoning
	var err error
	switch {
	case target.ThinkingLevel && budget.Exists() && r.Effort > mapping.EffortNone:
		if body, err = sjson.DeleteBytes(body, tc+".thinkingBudget"); err == nil {
			body, err = sjson.SetBytes(body, tc+".thinkingLevel", strings.ToUpper(r.Effort.String()))
		}
	case !target.ThinkingLevel && level.Exists() && r.Budget.Set:
		if body, err = sjson.DeleteBytes(body, tc+".thinkingLevel"); err == nil {
			body, err = sjson.SetBytes(body, tc+".thinkingBudget", r.Budget.Value)
		}
	}
	return body, err
}

// signCalls gives the first functionCall part of each model turn
// that has no thoughtSignature the value Google documents for calls
// without one (Gemini 3 requires a signature there), as the Gemini encoder
// does for translated requests.
func signCalls(body []byte) ([]byte, error) {
	var err error
	for i, c := range gjson.GetBytes(body, "contents").Array() {
		if c.Get("role").Str != "model" {
			continue
		}
		for j, part := range c.Get("parts").Array() {
			if !part.Get("functionCall").Exists() {
				continue
			}
			if !part.Get("thoughtSignature").Exists() {
				body, err = sjson.SetBytes(body, "contents."+strconv.Itoa(i)+".parts."+strconv.Itoa(j)+".thoughtSignature", SkipThoughtSignature)
				if err != nil {
					return body, err
				}
			}
			break
		}
	}
	return body, nil
}
