package caddymodule

import (
	"net/http"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/codec"
)

// bodyOnlyBetas moves the anthropic-beta values that an upstream of
// protocol upstream takes only in the body (codec.Descriptor.BodyOnlyBetas:
// Vertex AI's context-1m-2025-08-07, refused in the header) from the
// Anthropic-Beta header into body's anthropic_beta array, adding to the
// values the body names already. It runs before filterBetas, which would
// drop them from the header as values the upstream does not carry.
func bodyOnlyBetas(r *http.Request, body []byte, upstream codec.Protocol) ([]byte, error) {
	only := upstream.Descriptor().BodyOnlyBetas
	if only == nil {
		return body, nil
	}
	values := r.Header.Values("Anthropic-Beta")
	if len(values) == 0 {
		return body, nil
	}
	var kept, moved []string
	for _, v := range values {
		for _, b := range strings.Split(v, ",") {
			switch b = strings.TrimSpace(b); {
			case b == "":
			case only[b]:
				moved = append(moved, b)
			default:
				kept = append(kept, b)
			}
		}
	}
	if len(moved) == 0 {
		return body, nil
	}
	if len(kept) == 0 {
		r.Header.Del("Anthropic-Beta")
	} else {
		r.Header.Set("Anthropic-Beta", strings.Join(kept, ","))
	}
	for _, v := range gjson.GetBytes(body, "anthropic_beta").Array() {
		if v.Type == gjson.String && !slices.Contains(moved, v.Str) {
			moved = append(moved, v.Str)
		}
	}
	return sjson.SetBytes(body, "anthropic_beta", moved)
}
