package wire

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// OpenAIHeaders are the headers only OpenAI's servers read; both OpenAI
// protocols take them.
var OpenAIHeaders = []string{"Openai-Organization", "Openai-Project", "Openai-Beta"}

// OpenAIModelList is the model listing of both OpenAI protocols.
var OpenAIModelList = codec.Listing{Path: "/v1/models", Shape: codec.OpenAIChat}

// DecodeOpenAIError reads the code, param and type of an OpenAI error
// object.
func DecodeOpenAIError(errObject string, e *codec.Error) {
	errObj := gjson.Parse(errObject)
	e.Code = errObj.Get("code").String()
	e.Param = errObj.Get("param").String()
	if k, ok := mapping.FromOpenAIErrorType(e.Code); ok {
		e.Kind = k
	} else if k, ok := mapping.FromOpenAIErrorType(errObj.Get("type").Str); ok {
		e.Kind = k
	}
}

// AppendOpenAIError appends e as an OpenAI error body.
func AppendOpenAIError(dst []byte, _ codec.Protocol, e *codec.Error) []byte {
	dst = append(dst, `{"error":{"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	dst = append(dst, `,"type":`...)
	dst = jsonx.AppendString(dst, mapping.OpenAIErrorType(e.Kind))
	dst = append(dst, `,"param":`...)
	if e.Param != "" {
		dst = jsonx.AppendString(dst, e.Param)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"code":`...)
	if e.Code != "" && (e.Protocol == codec.OpenAIChat || e.Protocol == codec.OpenAIResponses) {
		dst = jsonx.AppendString(dst, e.Code)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, `}}`...)
}

// DecodeOpenAIModelList reads an OpenAI model listing (data[] of id,
// created, owned_by).
func DecodeOpenAIModelList(p codec.Protocol, body []byte, l *codec.ModelList) error {
	root, err := ParseListing(p, body)
	if err != nil {
		return err
	}
	data := root.Get("data")
	if !data.IsArray() {
		return codec.BadUpstream(p, "model listing has no data array")
	}
	for _, m := range data.Array() {
		id := m.Get("id")
		if id.Type != gjson.String || id.Str == "" {
			return codec.BadUpstream(p, "listed model has no id")
		}
		l.Models = append(l.Models, codec.ModelInfo{ID: id.Str, Created: m.Get("created").Int(), OwnedBy: m.Get("owned_by").String()})
	}
	return nil
}

// AppendOpenAIModelList writes l as an OpenAI model listing.
func AppendOpenAIModelList(dst []byte, l *codec.ModelList) []byte {
	dst = append(dst, `{"object":"list","data":[`...)
	for i, m := range l.Models {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = jsonx.AppendString(dst, m.ID)
		dst = append(dst, `,"object":"model","created":`...)
		dst = jsonx.AppendInt(dst, m.Created)
		dst = append(dst, `,"owned_by":`...)
		dst = jsonx.AppendString(dst, m.OwnedBy)
		dst = append(dst, '}')
	}
	return append(dst, `]}`...)
}
