package caddymodule

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/gemini"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// A passthrough body is the client's own, made for the model it named. When
// a model setting routes it to another model, whose rules may differ
// (Claude Code's budget thinking toward claude-opus-4-7, which takes only
// adaptive thinking), the body is fitted to the routed model: decoded to
// find what the rules change, then edited only there, every other byte
// kept. A body llmbridge cannot decode is forwarded as it is.

// fitPassthrough fits body, of client protocol p, to upstream model model.
func (h *Handler) fitPassthrough(body []byte, p codec.Protocol, model string) ([]byte, []rules.Adjustment, *codec.Error) {
	req := new(codec.Request)
	if err := codec.DecodeRequest(p, body, req); err != nil {
		return body, nil, nil
	}
	target, adj, cerr := h.fitModel(req, model)
	if cerr != nil {
		return body, nil, cerr
	}
	out, err := patchFitted(body, p.Family(), req, adj)
	if err == nil && p.Family() == codec.Gemini {
		out, err = patchGeminiThinking(out, req, target)
	}
	if err == nil && target.SignedFunctionCalls {
		out, err = signGeminiCalls(out)
	}
	if err != nil {
		return body, nil, codec.NewError(mapping.ErrInvalidRequest, "request body could not be fitted to "+model+": "+err.Error())
	}
	return out, adj, nil
}

// patchGeminiThinking writes a Gemini thinking setting in the form the
// model takes: a thinkingLevel toward a model that takes levels, a
// thinkingBudget toward one that takes budgets (the fitted request has it
// as an effort or a budget), never both.
func patchGeminiThinking(body []byte, req *codec.Request, target codec.Target) ([]byte, error) {
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

// signGeminiCalls gives the first functionCall part of each model turn
// that has no thoughtSignature the value Google documents for calls
// without one (Gemini 3 requires a signature there), as the Gemini encoder
// does for translated requests.
func signGeminiCalls(body []byte) ([]byte, error) {
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
				body, err = sjson.SetBytes(body, "contents."+strconv.Itoa(i)+".parts."+strconv.Itoa(j)+".thoughtSignature", gemini.SkipThoughtSignature)
				if err != nil {
					return body, err
				}
			}
			break
		}
	}
	return body, nil
}

// patchFitted writes the fields adj names from the fitted request req into
// body, a request of protocol family fam.
func patchFitted(body []byte, fam codec.Protocol, req *codec.Request, adj []rules.Adjustment) ([]byte, error) {
	var err error
	set := func(path string, v any) {
		if err == nil {
			body, err = sjson.SetBytes(body, path, v)
		}
	}
	del := func(path string) {
		if err == nil {
			body, err = sjson.DeleteBytes(body, path)
		}
	}
	for i := range adj {
		a := &adj[i]
		switch fam {
		case codec.AnthropicMessages:
			patchAnthropic(a.Param, req, set, del)
		case codec.OpenAIChat:
			patchChat(body, a.Param, req, set, del)
		case codec.OpenAIResponses:
			patchResponses(a.Param, req, set, del)
		case codec.Gemini:
			patchGemini(a.Param, req, set, del)
		}
	}
	return body, err
}

func patchAnthropic(param string, req *codec.Request, set func(string, any), del func(string)) {
	r := &req.Reasoning
	switch param {
	case "thinking", "thinking.budget_tokens":
		switch {
		case r.IsZero():
			del("thinking")
		case r.Adaptive:
			set("thinking.type", "adaptive")
			del("thinking.budget_tokens")
		case r.Budget.Set:
			set("thinking.type", "enabled")
			set("thinking.budget_tokens", r.Budget.Value)
		}
		if r.Effort > mapping.EffortNone {
			set("output_config.effort", r.Effort.String())
		} else {
			del("output_config.effort")
		}
	case "output_config.effort":
		if r.Effort > mapping.EffortNone {
			set("output_config.effort", r.Effort.String())
		} else {
			del("output_config.effort")
		}
	case "max_tokens":
		set("max_tokens", req.MaxTokens.Value)
	case "tool_choice":
		del("tool_choice")
	case "stop_sequences":
		del("stop_sequences")
	default:
		patchSampling(param, req, "", set, del)
		if n, ok := strings.CutPrefix(param, "messages["); ok {
			del("messages." + strings.TrimSuffix(n, "]"))
		}
	}
}

func patchChat(body []byte, param string, req *codec.Request, set func(string, any), del func(string)) {
	switch param {
	case "reasoning_effort":
		if e := req.Reasoning.Effort; e != mapping.EffortUnset {
			set("reasoning_effort", e.String())
		} else {
			del("reasoning_effort")
		}
	case "max_completion_tokens":
		// The client may have used either name.
		if bytes.Contains(body, []byte(`"max_tokens"`)) {
			set("max_tokens", req.MaxTokens.Value)
		}
		if bytes.Contains(body, []byte(`"max_completion_tokens"`)) {
			set("max_completion_tokens", req.MaxTokens.Value)
		}
	case "stop":
		del("stop")
	default:
		patchSampling(param, req, "", set, del)
	}
}

func patchResponses(param string, req *codec.Request, set func(string, any), del func(string)) {
	switch param {
	case "reasoning.effort":
		if e := req.Reasoning.Effort; e != mapping.EffortUnset {
			set("reasoning.effort", e.String())
		} else if req.Reasoning.IsZero() {
			// Not a reasoning model: no reasoning settings at all.
			del("reasoning")
		} else {
			del("reasoning.effort")
		}
	case "max_output_tokens":
		set("max_output_tokens", req.MaxTokens.Value)
	default:
		patchSampling(param, req, "", set, del)
	}
}

func patchGemini(param string, req *codec.Request, set func(string, any), del func(string)) {
	const tc = "generationConfig.thinkingConfig"
	r := &req.Reasoning
	switch param {
	case "thinkingConfig":
		del(tc)
	case "thinkingConfig.thinkingBudget":
		set(tc+".thinkingBudget", r.Budget.Value)
	case "thinkingConfig.thinkingLevel":
		del(tc + ".thinkingBudget")
		set(tc+".thinkingLevel", strings.ToUpper(r.Effort.String()))
	case "maxOutputTokens":
		set("generationConfig.maxOutputTokens", req.MaxTokens.Value)
	case "stopSequences":
		del("generationConfig.stopSequences")
	default:
		patchSampling(param, req, "generationConfig.", set, del)
	}
}

// patchSampling writes a sampling setting the rules removed or bounded.
func patchSampling(param string, req *codec.Request, prefix string, set func(string, any), del func(string)) {
	var v codec.OptFloat
	switch param {
	case "temperature":
		v = req.Temperature
	case "top_p", "topP":
		v = req.TopP
	case "top_k", "topK":
		if !req.TopK.Set {
			del(prefix + param)
		}
		return
	case "presence_penalty", "presencePenalty":
		v = req.PresencePenalty
	case "frequency_penalty", "frequencyPenalty":
		v = req.FrequencyPenalty
	default:
		return
	}
	if v.Set {
		set(prefix+param, v.Value)
	} else {
		del(prefix + param)
	}
}
