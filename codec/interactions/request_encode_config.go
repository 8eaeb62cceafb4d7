package interactions

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendTools appends tools: functions (custom and namespaced tools as
// the functions they become) and Google Search, which takes no options.
func appendTools(dst []byte, p codec.Protocol, req *codec.Request) ([]byte, *codec.Error) {
	if len(req.Tools) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"tools":[`...)
	for i := range req.Tools {
		t := &req.Tools[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		switch t.Kind {
		case codec.ToolWebSearch:
			if err := wire.CheckWebSearchFor(p, t, i, wire.WebSearchCaps{}); err != nil {
				return dst, err
			}
			dst = append(dst, `{"type":"google_search"}`...)
			continue
		case codec.ToolCustom:
			if err := wire.CheckCustomFor(p, t, i); err != nil {
				return dst, err
			}
		}
		if t.Strict.Value {
			return dst, wire.CannotEncode(p, wire.IndexPath("tools", i)+".strict", "strict function schemas", codec.Capability{Kind: codec.CapToolStrict, Tool: i})
		}
		name, desc, params := wire.FunctionView(t)
		dst = append(dst, `{"type":"function","name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		if params != "" {
			dst = append(dst, `,"parameters":`...)
			dst = append(dst, params...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// appendGenerationConfig appends generation_config when anything is set
// in it.
func appendGenerationConfig(dst []byte, req *codec.Request, opts *codec.EncodeOptions) []byte {
	start := len(dst)
	dst = append(dst, `,"generation_config":{`...)
	empty := len(dst)
	if req.Temperature.Set {
		dst = appendKey(dst, empty, "temperature")
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = appendKey(dst, empty, "top_p")
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.Seed.Set {
		dst = appendKey(dst, empty, "seed")
		dst = jsonx.AppendInt(dst, req.Seed.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = appendKey(dst, empty, "stop_sequences")
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	if req.MaxTokens.Set {
		dst = appendKey(dst, empty, "max_output_tokens")
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	dst = appendThinking(dst, empty, &req.Reasoning, opts)
	dst = appendToolChoice(dst, empty, &req.ToolChoice)
	if len(dst) == empty {
		return dst[:start]
	}
	return append(dst, '}')
}

// effortOf returns the effort r asks for: its effort, or the effort its
// budget stands for in budgets (a budget of 0 is none); dynamic thinking
// (Gemini's budget -1, Anthropic's adaptive) asks for no level, which
// leaves the model's own dynamic default.
func effortOf(r *codec.Reasoning, budgets mapping.EffortBudgets) mapping.Effort {
	switch {
	case r.Effort != mapping.EffortUnset:
		return r.Effort
	case r.Adaptive || !r.Budget.Set || r.Budget.Value < 0:
		return mapping.EffortUnset
	case r.Budget.Value == 0:
		return mapping.EffortNone
	}
	return budgets.Effort(r.Budget.Value)
}

// thinkingLevel returns the thinking_level of effort e: the four levels
// are themselves, xhigh and max are high, the largest level; "" for no
// effort and for none, since not every model can stop thinking (which
// level such a model is asked for instead is decided by the model rules
// before the request is encoded).
func thinkingLevel(e mapping.Effort) string {
	switch e {
	case mapping.EffortMinimal, mapping.EffortLow, mapping.EffortMedium, mapping.EffortHigh:
		return e.String()
	case mapping.EffortXHigh, mapping.EffortMax:
		return mapping.EffortHigh.String()
	}
	return ""
}

// appendThinking appends thinking_level and thinking_summaries. Thought
// summaries are asked for whenever thinking is, as toward generateContent,
// unless the client said otherwise (Gemini's includeThoughts, Anthropic's
// display omitted); thinking off asks for none.
func appendThinking(dst []byte, empty int, r *codec.Reasoning, opts *codec.EncodeOptions) []byte {
	e := effortOf(r, opts.EffortBudgets)
	if level := thinkingLevel(e); level != "" {
		dst = appendKey(dst, empty, "thinking_level")
		dst = jsonx.AppendString(dst, level)
	}
	include := r.IncludeThoughts
	switch {
	case include.Set:
	case e == mapping.EffortNone, r.Display == "omitted":
		include = codec.OptBool{Value: false, Set: e != mapping.EffortUnset || r.Adaptive || r.Budget.Set}
	case e != mapping.EffortUnset || r.Adaptive || r.Budget.Set:
		include = codec.OptBool{Value: true, Set: true}
	}
	if include.Set {
		dst = appendKey(dst, empty, "thinking_summaries")
		if include.Value {
			dst = append(dst, `"auto"`...)
		} else {
			dst = append(dst, `"none"`...)
		}
	}
	return dst
}

// appendToolChoice appends tool_choice: a mode, or allowed_tools naming
// the one tool a named choice forces.
func appendToolChoice(dst []byte, empty int, c *codec.ToolChoice) []byte {
	switch c.Mode {
	case codec.ToolChoiceAuto:
		return append(appendKey(dst, empty, "tool_choice"), `"auto"`...)
	case codec.ToolChoiceNone:
		return append(appendKey(dst, empty, "tool_choice"), `"none"`...)
	case codec.ToolChoiceRequired:
		return append(appendKey(dst, empty, "tool_choice"), `"any"`...)
	case codec.ToolChoiceNamed:
		dst = append(appendKey(dst, empty, "tool_choice"), `{"allowed_tools":{"mode":"any","tools":[`...)
		dst = jsonx.AppendString(dst, codec.FlatToolName(c.Namespace, c.Name))
		return append(dst, `]}}`...)
	}
	return dst
}

// appendResponseFormat appends response_format for structured output:
// text of media type application/json, with the schema when there is
// one.
func appendResponseFormat(dst []byte, f *codec.OutputFormat) []byte {
	if f.Kind == codec.FormatText {
		return dst
	}
	dst = append(dst, `,"response_format":{"type":"text","mime_type":"application/json"`...)
	if f.Kind == codec.FormatJSONSchema {
		dst = append(dst, `,"schema":`...)
		dst = append(dst, f.Schema...)
	}
	return append(dst, '}')
}

// appendKey appends "key": to an object whose first member would start
// at offset empty, with a comma unless it is the first member.
func appendKey(dst []byte, empty int, key string) []byte {
	if len(dst) > empty {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}
