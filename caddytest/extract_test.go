package caddytest

import (
	"strings"

	"github.com/tidwall/gjson"
)

// upstreamView is what an upstream request body says, read per protocol
// with gjson: the fields the shared conversation must carry intact.
type upstreamView struct {
	Model         string
	System        string
	Turns         []turn
	Temperature   *float64
	TopP          *float64
	MaxTokens     *int64
	StopSequences []string
}

// viewRequest extracts the conversation from a request of protocol p.
func viewRequest(p proto, rec *recordedRequest) upstreamView {
	root := gjson.ParseBytes(rec.Body)
	v := upstreamView{Model: rec.model(p)}
	num := func(r gjson.Result) *float64 {
		if r.Type != gjson.Number {
			return nil
		}
		f := r.Float()
		return &f
	}
	integer := func(r gjson.Result) *int64 {
		if r.Type != gjson.Number {
			return nil
		}
		n := r.Int()
		return &n
	}
	first := func(paths ...string) gjson.Result {
		for _, path := range paths {
			if r := root.Get(path); r.Exists() {
				return r
			}
		}
		return gjson.Result{}
	}
	var system []string

	switch p.family() {
	case openaiChat:
		for _, m := range root.Get("messages").Array() {
			role := m.Get("role").Str
			text := openaiText(m.Get("content"))
			if role == "system" || role == "developer" {
				system = append(system, text)
				continue
			}
			v.Turns = append(v.Turns, turn{role, text})
		}
		v.MaxTokens = integer(first("max_completion_tokens", "max_tokens"))
		v.Temperature, v.TopP = num(root.Get("temperature")), num(root.Get("top_p"))
		v.StopSequences = stringList(root.Get("stop"))
	case openaiResponses:
		if in := root.Get("instructions"); in.Type == gjson.String {
			system = append(system, in.Str)
		}
		input := root.Get("input")
		if input.Type == gjson.String {
			v.Turns = append(v.Turns, turn{"user", input.Str})
		}
		for _, item := range input.Array() {
			if input.Type == gjson.String {
				break
			}
			if t := item.Get("type").Str; t != "" && t != "message" {
				v.Turns = append(v.Turns, turn{"item:" + t, item.Raw})
				continue
			}
			role := item.Get("role").Str
			text := openaiText(item.Get("content"))
			if role == "system" || role == "developer" {
				system = append(system, text)
				continue
			}
			v.Turns = append(v.Turns, turn{role, text})
		}
		v.MaxTokens = integer(root.Get("max_output_tokens"))
		v.Temperature, v.TopP = num(root.Get("temperature")), num(root.Get("top_p"))
	case anthropicMsgs:
		if s := root.Get("system"); s.Type == gjson.String {
			system = append(system, s.Str)
		} else {
			for _, b := range s.Array() {
				system = append(system, b.Get("text").Str)
			}
		}
		for _, m := range root.Get("messages").Array() {
			v.Turns = append(v.Turns, turn{m.Get("role").Str, anthropicText(m.Get("content"))})
		}
		v.MaxTokens = integer(root.Get("max_tokens"))
		v.Temperature, v.TopP = num(root.Get("temperature")), num(root.Get("top_p"))
		v.StopSequences = stringList(root.Get("stop_sequences"))
	case gemini:
		for _, part := range first("systemInstruction", "system_instruction").Get("parts").Array() {
			system = append(system, part.Get("text").Str)
		}
		for _, c := range root.Get("contents").Array() {
			role := c.Get("role").Str
			if role == "model" {
				role = "assistant"
			}
			var text strings.Builder
			for _, part := range c.Get("parts").Array() {
				text.WriteString(part.Get("text").Str)
			}
			v.Turns = append(v.Turns, turn{role, text.String()})
		}
		gc := first("generationConfig", "generation_config")
		pick := func(names ...string) gjson.Result {
			for _, n := range names {
				if r := gc.Get(n); r.Exists() {
					return r
				}
			}
			return gjson.Result{}
		}
		v.MaxTokens = integer(pick("maxOutputTokens", "max_output_tokens"))
		v.Temperature, v.TopP = num(pick("temperature")), num(pick("topP", "top_p"))
		v.StopSequences = stringList(pick("stopSequences", "stop_sequences"))
	case geminiInteractions:
		system = append(system, root.Get("system_instruction").Str)
		input := root.Get("input")
		if input.Type == gjson.String {
			v.Turns = append(v.Turns, turn{"user", input.Str})
		}
		for _, s := range input.Array() {
			role := map[string]string{"user_input": "user", "model_output": "assistant"}[s.Get("type").Str]
			if role == "" {
				v.Turns = append(v.Turns, turn{"step:" + s.Get("type").Str, s.Raw})
				continue
			}
			var text strings.Builder
			for _, c := range s.Get("content").Array() {
				text.WriteString(c.Get("text").Str)
			}
			v.Turns = append(v.Turns, turn{role, text.String()})
		}
		gc := root.Get("generation_config")
		v.MaxTokens = integer(gc.Get("max_output_tokens"))
		v.Temperature, v.TopP = num(gc.Get("temperature")), num(gc.Get("top_p"))
		v.StopSequences = stringList(gc.Get("stop_sequences"))
	case bedrockConverse:
		for _, b := range root.Get("system").Array() {
			if t := b.Get("text"); t.Exists() {
				system = append(system, t.Str)
			}
		}
		for _, m := range root.Get("messages").Array() {
			var text strings.Builder
			for _, b := range m.Get("content").Array() {
				text.WriteString(b.Get("text").Str)
			}
			v.Turns = append(v.Turns, turn{m.Get("role").Str, text.String()})
		}
		ic := root.Get("inferenceConfig")
		v.MaxTokens = integer(ic.Get("maxTokens"))
		v.Temperature, v.TopP = num(ic.Get("temperature")), num(ic.Get("topP"))
		v.StopSequences = stringList(ic.Get("stopSequences"))
	}
	v.System = strings.Join(system, "\n")
	return v
}

// openaiText returns the text of an OpenAI content value: a string or an
// array of text parts (Chat "text", Responses "input_text"/"output_text").
func openaiText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var b strings.Builder
	for _, part := range c.Array() {
		b.WriteString(part.Get("text").Str)
	}
	return b.String()
}

// anthropicText returns the text of an Anthropic content value: a string
// or an array of text blocks.
func anthropicText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var b strings.Builder
	for _, block := range c.Array() {
		if block.Get("type").Str == "text" {
			b.WriteString(block.Get("text").Str)
		}
	}
	return b.String()
}

// stringList returns a JSON string or array of strings as a slice.
func stringList(r gjson.Result) []string {
	if r.Type == gjson.String {
		return []string{r.Str}
	}
	var out []string
	for _, s := range r.Array() {
		out = append(out, s.String())
	}
	return out
}
