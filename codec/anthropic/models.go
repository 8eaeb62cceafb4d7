package anthropic

import (
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// decodeModelList reads an Anthropic model listing (data[] with
// display names, limits and created_at; has_more).
func decodeModelList(root gjson.Result, p codec.Protocol, l *codec.ModelList) *codec.Error {
	data := root.Get("data")
	if !data.IsArray() {
		return codec.BadUpstream(p, "model listing has no data array")
	}
	for _, m := range data.Array() {
		id := m.Get("id")
		if id.Type != gjson.String || id.Str == "" {
			return codec.BadUpstream(p, "listed model has no id")
		}
		info := codec.ModelInfo{ID: id.Str, DisplayName: m.Get("display_name").String(), OwnedBy: "anthropic",
			InputTokenLimit: m.Get("max_input_tokens").Int(), OutputTokenLimit: m.Get("max_tokens").Int()}
		if t, err := time.Parse(time.RFC3339, m.Get("created_at").String()); err == nil {
			info.Created = t.Unix()
		}
		l.Models = append(l.Models, info)
	}
	l.HasMore = root.Get("has_more").Bool()
	return nil
}

// appendModelList writes l as an Anthropic model listing.
func appendModelList(dst []byte, l *codec.ModelList, opts codec.ModelListOptions) []byte {
	dst = append(dst, `{"data":[`...)
	for i, m := range l.Models {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"model","id":`...)
		dst = jsonx.AppendString(dst, m.ID)
		dst = append(dst, `,"display_name":`...)
		name := m.DisplayName
		if name == "" {
			name = m.ID
		}
		dst = jsonx.AppendString(dst, name)
		dst = append(dst, `,"created_at":`...)
		dst = jsonx.AppendString(dst, time.Unix(m.Created, 0).UTC().Format(time.RFC3339))
		if m.InputTokenLimit > 0 {
			dst = append(dst, `,"max_input_tokens":`...)
			dst = jsonx.AppendInt(dst, m.InputTokenLimit)
		}
		if m.OutputTokenLimit > 0 {
			dst = append(dst, `,"max_tokens":`...)
			dst = jsonx.AppendInt(dst, m.OutputTokenLimit)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"has_more":`...)
	if l.HasMore {
		dst = append(dst, "true"...)
	} else {
		dst = append(dst, "false"...)
	}
	dst = append(dst, `,"first_id":`...)
	if len(l.Models) > 0 {
		dst = jsonx.AppendString(dst, l.Models[0].ID)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"last_id":`...)
	if len(l.Models) > 0 {
		dst = jsonx.AppendString(dst, l.Models[len(l.Models)-1].ID)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, '}')
}
