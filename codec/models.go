package codec

import (
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// ModelList is a model listing in canonical form, decoded from an
// upstream's listing (DecodeModelList) and encoded in a client's shape
// (AppendModelList).
//
// There are three listing shapes: OpenAI's (GET /v1/models, used by the
// openai-chat and openai-responses protocols), Anthropic's (GET /v1/models
// with anthropic-version) and the Gemini API's (GET /v1beta/models).
// Vertex AI has no listing of the publisher models a project can call, so
// the vertex and vertex-anthropic protocols have no listing shape
// (HasModelList).
type ModelList struct {
	// Models are the models in the upstream's order.
	Models []ModelInfo
	// HasMore reports that the upstream has more models than this page
	// (Anthropic has_more, a Gemini nextPageToken).
	HasMore bool
	// NextPageToken is the Gemini API's token for the next page, kept only
	// for a Gemini client of a Gemini upstream, which can use it.
	NextPageToken string
}

// ModelInfo is one listed model. Fields a listing does not give are zero
// and left out of shapes where they are optional; a shape that requires
// them gets a neutral value (created 0, the Unix epoch) rather than a
// guess.
type ModelInfo struct {
	// ID is the model name as the upstream's generation API takes it,
	// without Gemini's "models/" prefix.
	ID string
	// DisplayName is the human-readable name, or "" when the listing has
	// none (OpenAI).
	DisplayName string
	// Description is the Gemini API's model description, or "".
	Description string
	// Created is the creation time in Unix seconds, or 0 when unknown.
	Created int64
	// OwnedBy is the organisation that owns the model: OpenAI's owned_by,
	// "anthropic" for Anthropic listings and "google" for Gemini ones.
	OwnedBy string
	// InputTokenLimit and OutputTokenLimit are the context window and the
	// largest output, or 0 when unknown (OpenAI listings give neither).
	InputTokenLimit, OutputTokenLimit int64
	// Methods are the Gemini API's supportedGenerationMethods, when the
	// listing came from a Gemini upstream.
	Methods []string
}

// ModelListOptions completes a listing encoded for a client whose upstream
// speaks another shape.
type ModelListOptions struct {
	// Methods are the supportedGenerationMethods written for models whose
	// listing gave none (Gemini clients of other upstreams): the methods
	// llmbridge serves toward that upstream.
	Methods []string
}

// HasModelList reports whether protocol p has a model listing endpoint.
func HasModelList(p Protocol) bool {
	d := p.Descriptor()
	return d != nil && d.Listing.Path != ""
}

// modelListShape returns the listing shape of protocol p: OpenAIChat for
// both OpenAI protocols, AnthropicMessages or Gemini.
func modelListShape(p Protocol) Protocol {
	if d := p.Descriptor(); d != nil && d.Listing.Shape != "" {
		return d.Listing.Shape
	}
	return p
}

// SameModelListShape reports whether protocols a and b list models in the
// same shape, so that a listing passes from one to the other unchanged.
func SameModelListShape(a, b Protocol) bool {
	return HasModelList(a) && HasModelList(b) && modelListShape(a) == modelListShape(b)
}

// DecodeModelList decodes an upstream's model listing of protocol p. A body
// that is not a listing of that shape is an *Error with status 502. The
// strings of the result may alias body.
func DecodeModelList(p Protocol, body []byte) (*ModelList, error) {
	if !HasModelList(p) {
		return nil, invalid("", "protocol "+string(p)+" has no model listing")
	}
	root, perr := parseObject(body)
	if perr != nil {
		return nil, badUpstream(p, "model listing is not a JSON object")
	}
	l := new(ModelList)
	c, err := wireOf(p)
	if err == nil {
		err = c.decodeModelList(root, p, l)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// AppendModelList appends l encoded as protocol p's model listing to dst.
// The Gemini shape gets a nextPageToken only when l has one (a listing
// from a Gemini upstream); no other upstream's page position can be
// expressed as one.
func AppendModelList(dst []byte, p Protocol, l *ModelList, opts ModelListOptions) []byte {
	c, err := wireOf(p)
	if err != nil || c.appendModelList == nil {
		return appendOpenAIModelList(dst, l, opts)
	}
	return c.appendModelList(dst, l, opts)
}

// decodeOpenAIModelList reads an OpenAI model listing (data[] of id,
// created, owned_by).
func decodeOpenAIModelList(root gjson.Result, p Protocol, l *ModelList) *Error {
	data := root.Get("data")
	if !data.IsArray() {
		return badUpstream(p, "model listing has no data array")
	}
	for _, m := range data.Array() {
		id := m.Get("id")
		if id.Type != gjson.String || id.Str == "" {
			return badUpstream(p, "listed model has no id")
		}
		l.Models = append(l.Models, ModelInfo{ID: id.Str, Created: m.Get("created").Int(), OwnedBy: m.Get("owned_by").String()})
	}
	return nil
}

// decodeAnthropicModelList reads an Anthropic model listing (data[] with
// display names, limits and created_at; has_more).
func decodeAnthropicModelList(root gjson.Result, p Protocol, l *ModelList) *Error {
	data := root.Get("data")
	if !data.IsArray() {
		return badUpstream(p, "model listing has no data array")
	}
	for _, m := range data.Array() {
		id := m.Get("id")
		if id.Type != gjson.String || id.Str == "" {
			return badUpstream(p, "listed model has no id")
		}
		info := ModelInfo{ID: id.Str, DisplayName: m.Get("display_name").String(), OwnedBy: "anthropic",
			InputTokenLimit: m.Get("max_input_tokens").Int(), OutputTokenLimit: m.Get("max_tokens").Int()}
		if t, err := time.Parse(time.RFC3339, m.Get("created_at").String()); err == nil {
			info.Created = t.Unix()
		}
		l.Models = append(l.Models, info)
	}
	l.HasMore = root.Get("has_more").Bool()
	return nil
}

// decodeGeminiModelList reads a Gemini API model listing (models[] with
// names, limits and methods; nextPageToken).
func decodeGeminiModelList(root gjson.Result, p Protocol, l *ModelList) *Error {
	models := root.Get("models")
	if models.Exists() && !models.IsArray() {
		return badUpstream(p, "models is not an array")
	}
	// An empty page of the Gemini API has no models member at all.
	for _, m := range models.Array() {
		name := m.Get("name")
		if name.Type != gjson.String || name.Str == "" {
			return badUpstream(p, "listed model has no name")
		}
		info := ModelInfo{ID: strings.TrimPrefix(name.Str, "models/"), DisplayName: m.Get("displayName").String(),
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

// appendAnthropicModelList writes l as an Anthropic model listing.
func appendAnthropicModelList(dst []byte, l *ModelList, opts ModelListOptions) []byte {
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

// appendGeminiModelList writes l as a Gemini API model listing; nextPageToken only when l has one.
func appendGeminiModelList(dst []byte, l *ModelList, opts ModelListOptions) []byte {
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

// appendOpenAIModelList writes l as an OpenAI model listing.
func appendOpenAIModelList(dst []byte, l *ModelList, _ ModelListOptions) []byte {
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
