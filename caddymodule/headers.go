package caddymodule

import (
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// credentialHeaders are the headers by which a client of any protocol may
// authenticate. All are removed before the request goes upstream, so that
// no credential of another protocol (or the client's own, when api_key is
// configured) ever reaches the upstream.
var credentialHeaders = sync.OnceValue(func() []string {
	names := []string{"Authorization"}
	for _, p := range codec.Protocols() {
		c := p.Descriptor().Credential
		for _, h := range [...]string{c.Header, c.AlsoHeader} {
			if h != "" && !slices.Contains(names, h) {
				names = append(names, h)
			}
		}
	}
	return names
})

// credentialQueries are the URL query parameters by which a client may
// authenticate (Gemini's key).
var credentialQueries = sync.OnceValue(func() []string {
	var names []string
	for _, p := range codec.Protocols() {
		if q := p.Descriptor().Credential.Query; q != "" && !slices.Contains(names, q) {
			names = append(names, q)
		}
	}
	return names
})

// clientCredential returns the credential the client sent, preferring its
// own protocol's scheme.
func clientCredential(p codec.Protocol, r *http.Request) string {
	bearer := func() string {
		v := r.Header.Get("Authorization")
		if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
			return strings.TrimSpace(v[7:])
		}
		return ""
	}
	var first string
	switch c := p.Descriptor().Credential; {
	case c.Header != "":
		first = r.Header.Get(c.Header)
		if first == "" && c.Query != "" {
			first = r.URL.Query().Get(c.Query)
		}
	default:
		first = bearer()
		if first == "" && c.AlsoHeader != "" {
			first = r.Header.Get(c.AlsoHeader)
		}
	}
	if first != "" {
		return first
	}
	if v := bearer(); v != "" {
		return v
	}
	for _, h := range credentialHeaders()[1:] {
		if v := r.Header.Get(h); v != "" {
			return v
		}
	}
	for _, q := range credentialQueries() {
		if v := r.URL.Query().Get(q); v != "" {
			return v
		}
	}
	return ""
}

// rewriteHeaders prepares the request headers for the upstream: cred is
// the upstream credential of the request (see credentialOf). It removes
// every client credential and every header that belongs to another
// protocol, sets the credential in the upstream's scheme, and adds the
// headers the upstream protocol requires. It fails only when an OAuth
// access token (Google's, Entra ID's) cannot be obtained.
func (h *Handler) rewriteHeaders(r *http.Request, client, upstream codec.Protocol, stream bool, cred *clouds.Credential) *codec.Error {
	key := cred.Key
	if cred.Tokens != nil {
		tok, err := cred.Tokens.Token()
		if err != nil {
			// The error comes from the token endpoint or the credentials
			// source; it holds no token.
			h.logger.Error("obtaining an OAuth access token for the upstream failed", zap.Error(err))
			return codec.NewError(mapping.ErrBadGateway, "the gateway could not obtain an access token for its upstream")
		}
		key = tok.AccessToken
	} else if key == "" && h.clientKeys == nil {
		// Without client_keys the client's credential is the upstream's;
		// with them it is a key of this gateway and stays here.
		key = clientCredential(client, r)
	}
	hdr := r.Header
	for _, name := range credentialHeaders() {
		hdr.Del(name)
	}
	for _, name := range aws.SignatureHeaders {
		hdr.Del(name)
	}
	// Go's transport asks for gzip itself and decodes it transparently;
	// anything else the client accepts could not be translated.
	hdr.Del("Accept-Encoding")
	up := upstream.Descriptor()
	for _, name := range up.ForeignHeaders() {
		hdr.Del(name)
	}
	for _, name := range up.DropHeaders {
		hdr.Del(name)
	}
	if key != "" {
		// An OAuth token (Vertex's Google token, Azure's Entra ID token)
		// is always a bearer token.
		if c := up.Credential; c.Header != "" && cred.Tokens == nil {
			hdr.Set(c.Header, key)
		} else {
			hdr.Set("Authorization", "Bearer "+key)
		}
	}
	for _, kv := range up.Headers {
		if hdr.Get(kv[0]) == "" {
			hdr.Set(kv[0], kv[1])
		}
	}
	hdr.Set("Content-Type", "application/json")
	if stream {
		hdr.Set("Accept", streams.ContentType(upstream))
	} else {
		hdr.Set("Accept", "application/json")
	}
	return nil
}

// authorized returns the index of the configured client key the request
// carries in its own protocol's credential header, or -1. Every candidate
// is compared with every key in constant time, without stopping at a
// match.
func (h *Handler) authorized(p codec.Protocol, r *http.Request) int {
	var candidates [3]string
	switch c := p.Descriptor().Credential; {
	case c.Header != "":
		candidates[0] = r.Header.Get(c.Header)
		if c.AlsoBearer {
			candidates[1] = bearerToken(r)
		}
		if candidates[0] == "" && c.Query != "" {
			candidates[2] = r.URL.Query().Get(c.Query)
		}
	default:
		candidates[0] = bearerToken(r)
		if c.AlsoHeader != "" {
			candidates[1] = r.Header.Get(c.AlsoHeader)
		}
	}
	found := -1
	for _, c := range candidates {
		if c == "" {
			continue
		}
		for i, k := range h.clientKeys {
			found = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare([]byte(c), k), i, found)
		}
	}
	return found
}

// bearerToken returns the token of an Authorization: Bearer header, or "".
func bearerToken(r *http.Request) string {
	v := r.Header.Get("Authorization")
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	return ""
}

// filterBetas removes from the request the anthropic-beta values the
// upstream does not accept and returns them as dropped paths
// ("anthropic-beta: effort-2025-11-24"). Only Vertex restricts them
// (codec.Descriptor.Betas).
func (h *Handler) filterBetas(r *http.Request, upstream codec.Protocol) []string {
	betas := upstream.Descriptor().Betas
	if betas == nil {
		return nil
	}
	values := r.Header.Values("Anthropic-Beta")
	if len(values) == 0 {
		return nil
	}
	var kept, dropped []string
	for _, v := range values {
		for _, b := range strings.Split(v, ",") {
			b = strings.TrimSpace(b)
			switch {
			case b == "":
			case betas[b]:
				kept = append(kept, b)
			default:
				dropped = append(dropped, "anthropic-beta: "+b)
			}
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	if len(kept) == 0 {
		r.Header.Del("Anthropic-Beta")
	} else {
		r.Header.Set("Anthropic-Beta", strings.Join(kept, ","))
	}
	return dropped
}

// betasToHeader moves the anthropic-beta values a client of protocol
// client carries in its body (codec.Descriptor.BodyBetas, Bedrock's
// anthropic_beta) to the Anthropic-Beta header, where filterBetas and an
// upstream of another protocol of the family read them. The sibling
// adaptation removes the member from the body.
func betasToHeader(r *http.Request, body []byte, client codec.Protocol) {
	member := client.Descriptor().BodyBetas
	if member == "" {
		return
	}
	var values []string
	for _, v := range gjson.GetBytes(body, member).Array() {
		if v.Type == gjson.String && v.Str != "" {
			values = append(values, v.Str)
		}
	}
	if len(values) == 0 {
		return
	}
	if h := r.Header.Get("Anthropic-Beta"); h != "" {
		values = append(strings.Split(h, ","), values...)
	}
	r.Header.Set("Anthropic-Beta", strings.Join(values, ","))
}

// betasToBody moves the Anthropic-Beta header's values into the body
// member in which an upstream of protocol upstream takes them
// (codec.Descriptor.BodyBetas); the header itself is dropped on the way
// (codec.Descriptor.DropHeaders). A body that names betas of its own (a
// client of the same protocol) keeps them.
func betasToBody(r *http.Request, body []byte, upstream codec.Protocol) ([]byte, error) {
	member := upstream.Descriptor().BodyBetas
	if member == "" || gjson.GetBytes(body, member).Exists() {
		return body, nil
	}
	var values []string
	for _, v := range r.Header.Values("Anthropic-Beta") {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" && !slices.Contains(values, b) {
				values = append(values, b)
			}
		}
	}
	if len(values) == 0 {
		return body, nil
	}
	return sjson.SetBytes(body, member, values)
}
