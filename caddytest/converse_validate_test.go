package caddytest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// This file holds a Converse request to what Bedrock enforces of it: the
// request rules of the Converse API, and for a Claude model the model
// rules Anthropic's models enforce, read from Converse's own fields.

// converseFields are the top-level members a Converse request may have.
// Bedrock streams by its path and names the model there, so stream and
// model are unknown.
var converseFields = []string{"messages", "system", "inferenceConfig", "toolConfig", "guardrailConfig",
	"additionalModelRequestFields", "promptVariables", "additionalModelResponseFieldPaths", "requestMetadata",
	"performanceConfig", "serviceTier", "outputConfig"}

// converseToolName is the pattern Bedrock holds tool names to.
var converseToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// converseImageFormats and converseDocFormats are the formats Converse
// takes for images and documents.
var (
	converseImageFormats = map[string]bool{"png": true, "jpeg": true, "gif": true, "webp": true}
	converseDocFormats   = map[string]bool{"pdf": true, "csv": true, "doc": true, "docx": true, "xls": true, "xlsx": true,
		"html": true, "txt": true, "md": true}
)

// validateConverseBody checks what Bedrock enforces of a Converse request:
// no model in the body, messages that start with a user turn and
// alternate, content blocks of one known member each in the shape that
// member needs (no blank text, base64 bytes, tool results answering the
// calls of the turn before), a toolConfig whenever the history holds tool
// blocks, and inferenceConfig members of the right types and ranges.
func validateConverseBody(root gjson.Result) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if root.Get("model").Exists() {
		bad("model must not be in the body on Bedrock (it is in the path)")
	}
	msgs := root.Get("messages")
	if !msgs.IsArray() || len(msgs.Array()) == 0 {
		bad("messages must be a non-empty array")
	}
	want := "user"
	toolBlocks := false
	var prevCalls map[string]bool
	for i, m := range msgs.Array() {
		role := m.Get("role").Str
		if role != want {
			bad("messages.%d.role %s: a conversation must start with a user message and alternate user and assistant", i, m.Get("role").Raw)
			break
		}
		want = map[string]string{"user": "assistant", "assistant": "user"}[role]
		content := m.Get("content")
		if !content.IsArray() || len(content.Array()) == 0 {
			bad("messages.%d.content must be a non-empty array", i)
			continue
		}
		calls := map[string]bool{}
		for j, b := range content.Array() {
			where := fmt.Sprintf("messages.%d.content.%d", i, j)
			kind := converseBlockKind(b)
			switch kind {
			case "":
				bad("%s must have exactly one member: %.200s", where, b.Raw)
				continue
			case "toolUse":
				toolBlocks = true
				if role != "assistant" {
					bad("%s: toolUse in a user message", where)
				}
				id := b.Get("toolUse.toolUseId")
				if id.Type != gjson.String || id.Str == "" {
					bad("%s.toolUse.toolUseId is required", where)
				}
				if calls[id.Str] {
					bad("%s.toolUse.toolUseId %q repeats an id of the same message", where, id.Str)
				}
				calls[id.Str] = true
				if !converseToolName.MatchString(b.Get("toolUse.name").Str) {
					bad("%s.toolUse.name %s does not match [a-zA-Z0-9_-]{1,64}", where, b.Get("toolUse.name").Raw)
				}
				if !b.Get("toolUse.input").IsObject() {
					bad("%s.toolUse.input must be an object, got %s", where, orAbsent(b.Get("toolUse.input")))
				}
			case "toolResult":
				toolBlocks = true
				if role != "user" {
					bad("%s: toolResult in an assistant message", where)
				}
				if id := b.Get("toolResult.toolUseId").Str; !prevCalls[id] {
					bad("%s.toolResult.toolUseId %q does not match a toolUse id of the previous turn", where, id)
				}
				if s := b.Get("toolResult.status"); s.Exists() && s.Str != "success" && s.Str != "error" {
					bad("%s.toolResult.status %s, want success or error", where, s.Raw)
				}
				rc := b.Get("toolResult.content")
				if !rc.IsArray() {
					bad("%s.toolResult.content must be an array", where)
				}
				for k, c := range rc.Array() {
					switch converseBlockKind(c) {
					case "text", "json", "image", "document":
						problems = append(problems, validateConverseBlock(fmt.Sprintf("%s.toolResult.content.%d", where, k), c)...)
					default:
						bad("%s.toolResult.content.%d must be one of text, json, image or document: %.200s", where, k, c.Raw)
					}
				}
			case "reasoningContent":
				if role != "assistant" {
					bad("%s: reasoningContent in a user message", where)
				}
				fallthrough
			default:
				problems = append(problems, validateConverseBlock(where, b)...)
			}
		}
		prevCalls = calls
	}
	if toolBlocks && !root.Get("toolConfig").Exists() {
		bad("The toolConfig field must be defined when using toolUse and toolResult content blocks.")
	}
	problems = append(problems, validateConverseConfig(root)...)
	for i, s := range root.Get("system").Array() {
		switch converseBlockKind(s) {
		case "text":
			if strings.TrimSpace(s.Get("text").Str) == "" {
				bad("system.%d.text is blank", i)
			}
		case "cachePoint", "guardContent":
		default:
			bad("system.%d must be text, cachePoint or guardContent: %.200s", i, s.Raw)
		}
	}
	if s := root.Get("system"); s.Exists() && !s.IsArray() {
		bad("system must be an array of blocks")
	}
	return problems
}

// converseBlockKind is the member a content block is made of, or "" for a
// block that is not an object of exactly one member.
func converseBlockKind(b gjson.Result) string {
	if !b.IsObject() {
		return ""
	}
	kind, n := "", 0
	b.ForEach(func(k, _ gjson.Result) bool {
		kind = k.Str
		n++
		return true
	})
	if n != 1 {
		return ""
	}
	return kind
}

// validateConverseBlock checks a content block other than a tool block:
// text that is a non-blank string, an image or document of a known format
// with base64 bytes, reasoning text with a signature or redacted bytes,
// and a known member.
func validateConverseBlock(where string, b gjson.Result) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	bytesOf := func(path string, v gjson.Result) {
		if v.Type != gjson.String || v.Str == "" {
			bad("%s must be base64 bytes", path)
		} else if _, err := base64.StdEncoding.DecodeString(v.Str); err != nil {
			bad("%s does not decode as base64: %v", path, err)
		}
	}
	switch kind := converseBlockKind(b); kind {
	case "text":
		if t := b.Get("text"); t.Type != gjson.String || strings.TrimSpace(t.Str) == "" {
			bad("The text field in the ContentBlock object at %s is blank. Add text to the text field, and try again.", where)
		}
	case "json":
		if !b.Get("json").Exists() {
			bad("%s.json is missing", where)
		}
	case "image":
		if f := b.Get("image.format").Str; !converseImageFormats[f] {
			bad("%s.image.format %q is not png, jpeg, gif or webp", where, f)
		}
		bytesOf(where+".image.source.bytes", b.Get("image.source.bytes"))
	case "document":
		if f := b.Get("document.format").Str; !converseDocFormats[f] {
			bad("%s.document.format %q is not a Converse document format", where, f)
		}
		if b.Get("document.name").Str == "" {
			bad("%s.document.name is required", where)
		}
		bytesOf(where+".document.source.bytes", b.Get("document.source.bytes"))
	case "reasoningContent":
		rc := b.Get("reasoningContent")
		switch converseBlockKind(rc) {
		case "reasoningText":
			if rc.Get("reasoningText.text").Type != gjson.String {
				bad("%s.reasoningContent.reasoningText.text must be a string", where)
			}
			if s := rc.Get("reasoningText.signature"); s.Exists() && s.Type != gjson.String {
				bad("%s.reasoningContent.reasoningText.signature must be a string", where)
			}
		case "redactedContent":
			bytesOf(where+".reasoningContent.redactedContent", rc.Get("redactedContent"))
		default:
			bad("%s.reasoningContent must be reasoningText or redactedContent: %.200s", where, rc.Raw)
		}
	case "cachePoint":
		if b.Get("cachePoint.type").Str != "default" {
			bad("%s.cachePoint.type must be default", where)
		}
	case "guardContent", "citationsContent", "video", "audio":
	default:
		bad("%s has an unknown member %q", where, kind)
	}
	return problems
}

// validateConverseConfig checks inferenceConfig and toolConfig.
func validateConverseConfig(root gjson.Result) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	ic := root.Get("inferenceConfig")
	if ic.Exists() && !ic.IsObject() {
		bad("inferenceConfig must be an object")
	}
	ic.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "maxTokens":
			if v.Type != gjson.Number || v.Num != float64(int64(v.Num)) || v.Num < 1 {
				bad("inferenceConfig.maxTokens %s must be a positive integer", v.Raw)
			}
		case "temperature", "topP":
			if v.Type != gjson.Number || v.Num < 0 || v.Num > 1 {
				bad("inferenceConfig.%s %s must be a number from 0 to 1", k.Str, v.Raw)
			}
		case "stopSequences":
			if !v.IsArray() {
				bad("inferenceConfig.stopSequences must be an array of strings")
			}
			for _, s := range v.Array() {
				if s.Type != gjson.String || s.Str == "" {
					bad("inferenceConfig.stopSequences holds %s, want non-empty strings", s.Raw)
				}
			}
		default:
			bad("inferenceConfig has an unknown member %q", k.Str)
		}
		return true
	})
	tc := root.Get("toolConfig")
	if !tc.Exists() {
		return problems
	}
	tools := tc.Get("tools")
	if !tools.IsArray() || len(tools.Array()) == 0 {
		bad("toolConfig.tools must be a non-empty array")
	}
	names := map[string]bool{}
	for i, t := range tools.Array() {
		switch converseBlockKind(t) {
		case "toolSpec":
			name := t.Get("toolSpec.name").Str
			if !converseToolName.MatchString(name) {
				bad("toolConfig.tools.%d.toolSpec.name %q does not match [a-zA-Z0-9_-]{1,64}", i, name)
			}
			if names[name] {
				bad("toolConfig.tools.%d.toolSpec.name %q is declared twice", i, name)
			}
			names[name] = true
			if d := t.Get("toolSpec.description"); d.Exists() && (d.Type != gjson.String || d.Str == "") {
				bad("toolConfig.tools.%d.toolSpec.description must be a non-empty string", i)
			}
			if !t.Get("toolSpec.inputSchema.json").IsObject() {
				bad("toolConfig.tools.%d.toolSpec.inputSchema.json must be a JSON schema object", i)
			}
		case "cachePoint", "systemTool":
		default:
			bad("toolConfig.tools.%d must be a toolSpec: %.200s", i, t.Raw)
		}
	}
	if ch := tc.Get("toolChoice"); ch.Exists() {
		switch converseBlockKind(ch) {
		case "auto", "any":
		case "tool":
			if !names[ch.Get("tool.name").Str] {
				bad("toolConfig.toolChoice.tool.name %q is not a declared tool", ch.Get("tool.name").Str)
			}
		default:
			bad("toolConfig.toolChoice must be one of auto, any or tool: %s", ch.Raw)
		}
	}
	return problems
}

// converseAsAnthropic is a Converse request for a Claude model read as the
// Messages request Bedrock makes of it, in the members Anthropic's model
// rules look at: max_tokens, temperature and top_p from inferenceConfig,
// thinking and top_k from additionalModelRequestFields, the effort of
// outputConfig, the tool choice's kind, and each message's blocks by
// their Anthropic type.
func converseAsAnthropic(root gjson.Result) gjson.Result {
	body := map[string]any{}
	set := func(key string, v gjson.Result) {
		if v.Exists() {
			body[key] = v.Value()
		}
	}
	ic, extra := root.Get("inferenceConfig"), root.Get("additionalModelRequestFields")
	set("max_tokens", ic.Get("maxTokens"))
	set("temperature", ic.Get("temperature"))
	set("top_p", ic.Get("topP"))
	set("top_k", extra.Get("top_k"))
	set("thinking", extra.Get("thinking"))
	if e := root.Get("outputConfig.effort"); e.Exists() {
		body["output_config"] = map[string]any{"effort": e.Value()}
	}
	if kind := converseBlockKind(root.Get("toolConfig.toolChoice")); kind != "" {
		body["tool_choice"] = map[string]any{"type": kind}
	}
	types := map[string]string{"text": "text", "toolUse": "tool_use", "toolResult": "tool_result", "image": "image", "document": "document"}
	var msgs []any
	for _, m := range root.Get("messages").Array() {
		var blocks []any
		for _, b := range m.Get("content").Array() {
			kind := converseBlockKind(b)
			typ := types[kind]
			if kind == "reasoningContent" {
				typ = "thinking"
				if b.Get("reasoningContent.redactedContent").Exists() {
					typ = "redacted_thinking"
				}
			}
			if typ == "" {
				typ = kind
			}
			blocks = append(blocks, map[string]any{"type": typ})
		}
		msgs = append(msgs, map[string]any{"role": m.Get("role").Str, "content": blocks})
	}
	body["messages"] = msgs
	b, err := json.Marshal(body)
	if err != nil {
		panic("marshalling a map of JSON values: " + err.Error())
	}
	return gjson.ParseBytes(b)
}
