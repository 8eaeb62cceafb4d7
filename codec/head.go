package codec

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// RequestHead is what llmbridge reads of a request body that it forwards
// untranslated (client and upstream of one wire family): the members it
// routes by, and whether one of them is repeated.
type RequestHead struct {
	// Model is the top-level "model" member when it is a string, else "".
	Model string
	// HasModel reports that the "model" member is a string (an empty one
	// included).
	HasModel bool
	// Stream reports that the top-level "stream" member is true (the
	// JSON true, a number other than 0, or a string that parses as true,
	// as Go's strconv.ParseBool reads it).
	Stream bool
	// Repeated is the first of model, stream and anthropic_version that
	// appears a second time, or "". A proxy that reads one copy while the
	// upstream reads the other would route by a value that is not used.
	Repeated string

	// MaxTokens, Temperature and TopP are the generation settings, where
	// the body's family keeps them: at the top (max_tokens,
	// max_completion_tokens or max_output_tokens, temperature, top_p), in
	// generationConfig or generation_config (Gemini: maxOutputTokens,
	// temperature, topP; the Interactions API: max_output_tokens,
	// temperature, top_p) or in inferenceConfig (Bedrock Converse:
	// maxTokens, temperature, topP).
	// Only numbers count. They are read for telemetry, in the same pass.
	MaxTokens   OptInt
	Temperature OptFloat
	TopP        OptFloat
}

// readSetting sets the generation setting that key names, if any.
func (h *RequestHead) readSetting(key string, v gjson.Result) {
	if v.Type != gjson.Number {
		return
	}
	switch key {
	case "max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens", "maxTokens":
		h.MaxTokens = OptInt{Value: v.Int(), Set: true}
	case "temperature":
		h.Temperature = OptFloat{Value: v.Float(), Set: true}
	case "top_p", "topP":
		h.TopP = OptFloat{Value: v.Float(), Set: true}
	}
}

// ReadRequestHead validates body as one JSON object and reads its head in
// the same pass that validates it: the members' values are skipped by the
// document index, so a passthrough looks at each byte about once (gjson's
// Valid, ForEach and Get each walked the whole body). A body that is not a
// JSON object is an *Error with status 400.
func ReadRequestHead(body []byte) (RequestHead, error) {
	root, index, problem := jsonx.ParseIndexed(jsonx.BytesToString(body))
	if problem != "" {
		return RequestHead{}, InvalidRequest("", "request body "+problem)
	}
	defer index.Release()
	a := jsonx.IndexedArena(index)
	head := RequestHead{}
	var seenModel, seenStream, seenVersion bool
	see := func(seen *bool, key string) {
		if *seen && head.Repeated == "" {
			head.Repeated = key
		}
		*seen = true
	}
	for key, value := range jsonx.Members(root.Raw, &a) {
		switch key {
		case "model":
			see(&seenModel, key)
			v := value.Result()
			head.Model, head.HasModel = v.Str, v.Type == gjson.String
		case "stream":
			see(&seenStream, key)
			head.Stream = value.Result().Bool()
		case "anthropic_version":
			see(&seenVersion, key)
		case "max_tokens", "max_completion_tokens", "max_output_tokens", "temperature", "top_p":
			head.readSetting(key, value.Result())
		case "generationConfig", "generation_config", "inferenceConfig":
			for key, value := range jsonx.Members(value.Raw, &a) {
				head.readSetting(key, value.Result())
			}
		}
	}
	return head, nil
}

// ReadTopMembers sets values[k] to the first member named keys[k] of the
// object at the top of body, as gjson reads the value, and reports whether
// body holds an object. body need not be valid JSON: the members are read
// before the body is decoded (and rejected, if malformed, with the precise
// error), in one pass that skips the values it does not want
// (SkimTopMembers); gjson's Get stepped through every byte of a megabyte
// body, once per member looked up.
func ReadTopMembers(body []byte, keys []string, values []gjson.Result) bool {
	left := len(keys)
	object, _ := SkimTopMembers(body, func(key, _, raw string) bool {
		for k, name := range keys {
			if key == name && values[k].Type == gjson.Null && values[k].Raw == "" {
				values[k] = gjson.Parse(raw)
				left--
			}
		}
		return left > 0
	})
	return object
}

// SkimTopMembers calls yield with each member of the object at the top of
// body, in order, until yield returns false: its key (unescaped), the
// key's literal as written (without its quotes) and its raw value. It
// reports whether body holds an object and whether the walk read it
// whole, to the closing brace and without yield stopping it. body need
// not be valid JSON (a walk stops at the first byte that breaks the
// object's syntax); values are skipped, not checked, 64 bytes of a string
// at a time.
func SkimTopMembers(body []byte, yield func(key, literal, raw string) bool) (object, whole bool) {
	return jsonx.SkimMembers(jsonx.BytesToString(body), func(literal, raw string) bool {
		key := literal
		if strings.IndexByte(key, '\\') >= 0 {
			key = gjson.Parse(`"` + key + `"`).Str
		}
		return yield(key, literal, raw)
	})
}
