package caddytest

import (
	"github.com/tidwall/gjson"
)

// assistantTexts are the texts of the assistant turns of an upstream
// request of protocol p, each text part on its own (thoughts left out).
func assistantTexts(p proto, body []byte) []string {
	root := gjson.ParseBytes(body)
	var out []string
	add := func(content gjson.Result, textTypes ...string) {
		if content.Type == gjson.String {
			out = append(out, content.Str)
			return
		}
		for _, part := range content.Array() {
			t := part.Get("type").Str
			for _, want := range textTypes {
				if t == want || want == "" && !part.Get("thought").Bool() && part.Get("text").Exists() {
					out = append(out, part.Get("text").Str)
				}
			}
		}
	}
	switch p.family() {
	case openaiChat:
		for _, m := range root.Get("messages").Array() {
			if m.Get("role").Str == "assistant" {
				add(m.Get("content"), "text")
			}
		}
	case openaiResponses:
		for _, it := range root.Get("input").Array() {
			if it.Get("role").Str == "assistant" && (it.Get("type").Str == "" || it.Get("type").Str == "message") {
				add(it.Get("content"), "output_text", "input_text")
			}
		}
	case anthropicMsgs:
		for _, m := range root.Get("messages").Array() {
			if m.Get("role").Str == "assistant" {
				add(m.Get("content"), "text")
			}
		}
	case gemini:
		for _, c := range root.Get("contents").Array() {
			if c.Get("role").Str == "model" {
				add(c.Get("parts"), "")
			}
		}
	case bedrockConverse:
		for _, m := range root.Get("messages").Array() {
			if m.Get("role").Str == "assistant" {
				add(m.Get("content"), "")
			}
		}
	case geminiInteractions:
		for _, s := range root.Get("input").Array() {
			if s.Get("type").Str == "model_output" {
				add(s.Get("content"), "text")
			}
		}
	}
	return out
}
