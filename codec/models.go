package codec

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
	return d != nil && d.Listing.Path != "" && listerOf(p) != nil
}

// listerOf returns the ModelLister of p's listing shape, or nil.
func listerOf(p Protocol) ModelLister {
	if d := modelListShape(p).Descriptor(); d != nil {
		return d.lister
	}
	return nil
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
		return nil, InvalidRequest("", "protocol "+string(p)+" has no model listing")
	}
	l := new(ModelList)
	if err := listerOf(p).DecodeModelList(p, body, l); err != nil {
		return nil, err
	}
	return l, nil
}

// AppendModelList appends l encoded as protocol p's model listing to dst.
// The Gemini shape gets a nextPageToken only when l has one (a listing
// from a Gemini upstream); no other upstream's page position can be
// expressed as one.
func AppendModelList(dst []byte, p Protocol, l *ModelList, opts ModelListOptions) []byte {
	lister := listerOf(p)
	if lister == nil {
		// A protocol without a listing of its own answers in OpenAI's
		// shape, which most clients read.
		if lister = listerOf(OpenAIChat); lister == nil {
			return dst
		}
		p = OpenAIChat
	}
	return lister.AppendModelList(dst, p, l, opts)
}
