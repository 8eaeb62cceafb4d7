package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// decodeModelList reads a Gemini API model listing (models[] with
// names, limits and methods; nextPageToken).
func decodeModelList(root gjson.Result, p codec.Protocol, l *codec.ModelList) *codec.Error {
	models := root.Get("models")
	if models.Exists() && !models.IsArray() {
		return codec.BadUpstream(p, "models is not an array")
	}
	// An empty page of the Gemini API has no models member at all.
	for _, m := range models.Array() {
		name := m.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return codec.BadUpstream(p, "listed model has no name")
		}
		info := codec.ModelInfo{ID: strings.TrimPrefix(name.Str, "models/"), DisplayName: m.Get("displayName").String(),
			Description: m.Get("description").String(), OwnedBy: "google",
			InputTokenLimit: m.Get("inputTokenLimit").Int(), OutputTokenLimit: m.Get("outputTokenLimit").Int()}
		for _, g := range m.Get("supportedGenerationMethods").Array() {
			info.Methods = append(info.Methods, g.String())
		}
		l.Models = append(l.Models, info)
	}
	l.NextPageToken = root.Get("nextPageToken").String()
	l.HasMore = l.NextPageToken != ""
	return nil
}

// appendModelList writes l as a Gemini API model listing; nextPageToken only when l has one.
func appendModelList(dst []byte, l *codec.ModelList, opts codec.ModelListOptions) []byte {
	dst = append(dst, `{"models":[`...)
	for i, m := range l.Models {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = jsonx.AppendString(dst, "models/"+m.ID)
		dst = append(dst, `,"displayName":`...)
		name := m.DisplayName
		if name == "" {
			name = m.ID
		}
		dst = jsonx.AppendString(dst, name)
		if m.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, m.Description)
		}
		if m.InputTokenLimit > 0 {
			dst = append(dst, `,"inputTokenLimit":`...)
			dst = jsonx.AppendInt(dst, m.InputTokenLimit)
		}
		if m.OutputTokenLimit > 0 {
			dst = append(dst, `,"outputTokenLimit":`...)
			dst = jsonx.AppendInt(dst, m.OutputTokenLimit)
		}
		methods := m.Methods
		if methods == nil {
			methods = opts.Methods
		}
		dst = append(dst, `,"supportedGenerationMethods":`...)
		dst = jsonx.AppendStringArray(dst, methods)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if l.NextPageToken != "" {
		dst = append(dst, `,"nextPageToken":`...)
		dst = jsonx.AppendString(dst, l.NextPageToken)
	}
	return append(dst, '}')
}
