package gemini

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeGenerationConfig decodes generationConfig. Fields whose value
// is the proto default (candidateCount 1, responseMimeType "text/plain",
// responseModalities ["TEXT"], responseLogprobs false, ...) ask for nothing
// beyond plain text generation and are accepted.
func decodeGenerationConfig(v gjson.Result, key string, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType(key, "object", v)
	}
	var f format
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		v := member.Result()
		err = decodeGenerationField(k, v, key, req, &f)
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	return f.resolve(key, req)
}

// format collects the structured output fields of generationConfig,
// which can only be judged together: responseMimeType and one of
// responseJsonSchema (JSON Schema) and responseSchema (the legacy OpenAPI
// subset), each with the key the client spelled it with.
type format struct {
	mime, mimeKey     string
	schema            gjson.Result
	schemaKey         string
	legacy, legacyKey string
	legacyValue       gjson.Result
}

// resolve sets req.Format: application/json is a JSON object, or JSON that
// follows the schema when one is given; text/plain (or none) is plain text,
// where a schema is an error, as Gemini makes it; other media types
// (text/x.enum, ...) have no equivalent elsewhere. key is the spelling of
// generationConfig.
func (f *format) resolve(key string, req *request) *codec.Error {
	hasSchema := f.schema.Exists() && f.schema.Type != gjson.Null
	hasLegacy := f.legacyValue.Exists() && f.legacyValue.Type != gjson.Null
	switch {
	case hasSchema && hasLegacy:
		return codec.InvalidRequest(key+"."+f.schemaKey, "responseSchema and responseJsonSchema must not both be set")
	case f.mime != "" && f.mime != "text/plain" && f.mime != "application/json":
		return wire.UnsupportedField(key+"."+f.mimeKey, `only "text/plain" and "application/json" output is supported`)
	case f.mime != "application/json":
		switch {
		case hasSchema:
			return codec.InvalidRequest(key+"."+f.schemaKey, `requires responseMimeType "application/json"`)
		case hasLegacy:
			return codec.InvalidRequest(key+"."+f.legacyKey, `requires responseMimeType "application/json"`)
		}
		req.Format = codec.OutputFormat{}
		return nil
	case hasSchema:
		if !f.schema.IsObject() {
			return wire.WrongType(key+"."+f.schemaKey, "object", f.schema)
		}
		req.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: f.schema.Raw}
	case hasLegacy:
		if !f.legacyValue.IsObject() {
			return wire.WrongType(key+"."+f.legacyKey, "object", f.legacyValue)
		}
		b, err := appendJSONSchema(nil, f.legacyValue, key+"."+f.legacyKey, req)
		if err != nil {
			return err
		}
		req.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: jsonx.BytesToString(b)}
	default:
		req.Format = codec.OutputFormat{Kind: codec.FormatJSONObject}
	}
	return nil
}

// decodeGenerationField decodes one field of generationConfig; key is
// the spelling of generationConfig. Errors are built with paths relative to
// the field and completed here, so that no path is built on success.
func decodeGenerationField(name string, f gjson.Result, key string, req *request, format *format) *codec.Error {
	err := decodeGenerationValue(name, f, key, req, format)
	if err != nil {
		wire.SetPath(err, key+"."+name+err.Param)
	}
	return err
}

// decodeGenerationValue decodes the value of generationConfig.name;
// the Param of an error it returns is relative to the field ("" or "[i]").
// Structured output fields are collected in format.
func decodeGenerationValue(name string, f gjson.Result, key string, req *request, format *format) *codec.Error {
	switch name {
	case "maxOutputTokens", "max_output_tokens": //field:generationConfig.maxOutputTokens: mapped
		return wire.ReadInt(f, "", &req.MaxTokens)
	case "temperature": //field:generationConfig.temperature: mapped
		return wire.ReadFloat(f, "", &req.Temperature)
	case "topP", "top_p": //field:generationConfig.topP: mapped
		return wire.ReadFloat(f, "", &req.TopP)
	case "topK", "top_k": //field:generationConfig.topK: capability
		// topK is a float in Vertex's schema but integral in practice;
		// the canonical cutoff is an integer.
		return wire.ReadInt(f, "", &req.TopK)
	case "seed": //field:generationConfig.seed: hint
		return wire.ReadInt(f, "", &req.Seed)
	case "presencePenalty", "presence_penalty": //field:generationConfig.presencePenalty: capability
		return wire.ReadFloat(f, "", &req.PresencePenalty)
	case "frequencyPenalty", "frequency_penalty": //field:generationConfig.frequencyPenalty: capability
		return wire.ReadFloat(f, "", &req.FrequencyPenalty)
	case "stopSequences", "stop_sequences": //field:generationConfig.stopSequences: capability
		var err *codec.Error
		req.StopSequences, err = wire.ReadStringList(f, "", false, req.StopSequences[:0], &req.Text)
		return err
	case "candidateCount", "candidate_count": //field:generationConfig.candidateCount: capability
		var n codec.OptInt
		if err := wire.ReadInt(f, "", &n); err != nil {
			return err
		}
		if n.Value != 0 && n.Value != 1 {
			return wire.UnsupportedField("", "only one candidate is supported")
		}
	case "responseMimeType", "response_mime_type": //field:generationConfig.responseMimeType (application/json): capability
		switch f.Type {
		case gjson.Null:
			format.mime, format.mimeKey = "", name
		case gjson.String:
			format.mime, format.mimeKey = f.Str, name
		default:
			return wire.WrongType("", "string", f)
		}
	case "responseJsonSchema", "response_json_schema": //field:generationConfig.responseJsonSchema: mapped
		format.schema, format.schemaKey = f, name
	case "responseSchema", "response_schema": //field:generationConfig.responseSchema: mapped
		format.legacyValue, format.legacyKey = f, name
	case "thinkingConfig", "thinking_config": //field:generationConfig.thinkingConfig: mapped
		return decodeThinkingConfig(f, req)
	case "responseModalities", "response_modalities": //field:generationConfig.responseModalities: capability
		return decodeModalities(f)
	case "mediaResolution", "media_resolution": //field:generationConfig.mediaResolution: hint
		// The resolution at which input media are tokenised has no
		// canonical slot; it only affects cost and detail of media input.
		switch f.Type {
		case gjson.Null:
		case gjson.String:
			req.Dropped = append(req.Dropped, key+"."+name)
		default:
			return wire.WrongType("", "string", f)
		}
	case "responseLogprobs", "response_logprobs", "audioTimestamp", "audio_timestamp": //field:generationConfig.responseLogprobs: capability; generationConfig.audioTimestamp: capability
		switch f.Type {
		case gjson.Null, gjson.False:
		case gjson.True:
			return wire.UnsupportedField("", generationWhy(name))
		default:
			return wire.WrongType("", "boolean", f)
		}
	case "logprobs": //field:generationConfig.logprobs: capability
		var n codec.OptInt
		if err := wire.ReadInt(f, "", &n); err != nil {
			return err
		}
		if n.Value != 0 {
			return wire.UnsupportedField("", generationWhy(name))
		}
	case "speechConfig", "speech_config", "imageConfig", "image_config": //field:generationConfig.speechConfig: capability; generationConfig.imageConfig: capability
		if f.Type != gjson.Null {
			return wire.UnsupportedField("", generationWhy(name))
		}
	default:
		return wire.UnknownField("")
	}
	return nil
}

// generationWhy explains why a generationConfig capability is
// rejected.
func generationWhy(name string) string {
	switch name {
	case "responseLogprobs", "response_logprobs", "logprobs":
		return "log probabilities are not supported yet"
	case "audioTimestamp", "audio_timestamp", "speechConfig", "speech_config":
		return "audio is not supported yet"
	}
	return "image output is not supported yet"
}

// thinkingLevels maps thinkingLevel values (the enum names, and the
// lower-case spelling Google's documentation uses) to efforts.
var thinkingLevels = map[string]mapping.Effort{
	"MINIMAL": mapping.EffortMinimal, "LOW": mapping.EffortLow, "MEDIUM": mapping.EffortMedium, "HIGH": mapping.EffortHigh,
	"minimal": mapping.EffortMinimal, "low": mapping.EffortLow, "medium": mapping.EffortMedium, "high": mapping.EffortHigh,
}

// decodeThinkingConfig decodes generationConfig.thinkingConfig into
// req.Reasoning: thinkingBudget is a token budget (0 disables thinking, -1
// lets the model decide: Adaptive), thinkingLevel an effort (Gemini 3),
// includeThoughts whether thought summaries are returned. Budget and level
// are alternatives, as Gemini itself rejects both. Error paths are relative
// to thinkingConfig.
func decodeThinkingConfig(v gjson.Result, req *request) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("", "object", v)
	}
	r := &req.Reasoning
	var budget codec.OptInt
	var budgetKey, levelKey string
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		switch k {
		case "thinkingBudget", "thinking_budget":
			budget, budgetKey = codec.OptInt{}, k
			if err = wire.ReadInt(f, "."+k, &budget); err == nil && budget.Set && budget.Value < -1 {
				err = codec.InvalidRequest("."+k, "must be -1 (dynamic), 0 (off) or a positive token budget")
			}
		case "includeThoughts", "include_thoughts": //field:generationConfig.thinkingConfig.includeThoughts: hint
			r.IncludeThoughts = codec.OptBool{}
			err = wire.ReadOptBool(f, "."+k, &r.IncludeThoughts)
		case "thinkingLevel", "thinking_level":
			r.Effort, levelKey = mapping.EffortUnset, k
			switch {
			case f.Type == gjson.Null || f.Type == gjson.String && (f.Str == "" || f.Str == "THINKING_LEVEL_UNSPECIFIED"):
				levelKey = ""
			case f.Type != gjson.String:
				err = wire.WrongType("."+k, "string", f)
			default:
				e, ok := thinkingLevels[f.Str]
				if !ok {
					err = codec.InvalidRequest("."+k, `must be "minimal", "low", "medium" or "high"`)
				}
				r.Effort = e
			}
		default:
			err = wire.UnknownField("." + k)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return err
	case budget.Set && levelKey != "":
		return codec.InvalidRequest("."+budgetKey, "thinkingBudget and thinkingLevel must not both be set")
	case budget.Set && budget.Value == -1:
		r.Adaptive, r.Budget = true, codec.OptInt{}
	default:
		r.Adaptive, r.Budget = false, budget
	}
	return nil
}

// decodeModalities accepts responseModalities that ask for text
// only; error paths are relative to the field.
func decodeModalities(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wire.WrongType("", "array of strings", v)
	}
	var err *codec.Error
	i := 0
	for _, member := range jsonx.Members(v.Raw, nil) {
		m := member.Result()
		switch {
		case m.Type != gjson.String:
			err = wire.WrongType(wire.IndexPath("", i), "string", m)
		case m.Str != "TEXT":
			err = wire.UnsupportedField(wire.IndexPath("", i), "only TEXT output is supported")
		}
		i++
		if err != nil {
			break
		}
	}
	return err
}
