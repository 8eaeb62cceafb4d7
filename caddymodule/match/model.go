// Package match holds the llm_model request matcher
// (http.matchers.llm_model): generation requests matched by the model
// they ask for, so that one site can send some models to one upstream and
// the rest to another with ordinary handle blocks. It imports the codec's
// route detection and the model-name patterns, nothing of the handler.
package match

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/internal/glob"
	"github.com/llmbridge/llmbridge/codec"
)

func init() {
	caddy.RegisterModule(Model{})
}

// DefaultMaxBody is how much of a request body the llm_model matcher
// reads, when max_body is not configured, to find the model: a body larger
// than this does not match. It is the llmbridge handler's default
// max_request_body.
const DefaultMaxBody = 32 << 20

// Model matches generation requests by the model they ask for: the
// model member of a JSON body (OpenAI, Anthropic), or the model in the path
// of a Gemini, Vertex or Anthropic-on-Vertex request. It reads the body
// without consuming it: the handlers after it see every byte.
//
// It lets one site send some models to one upstream and the rest to
// another with ordinary handle blocks.
type Model struct {
	// Models are the patterns the requested model is matched against; any
	// match is a match. Each '*' matches any run of characters, the rest
	// must match exactly.
	Models []string `json:"models,omitempty"`

	// MaxBody is the most bytes of a body read to find the model; a larger
	// body does not match. Default: 32 MiB, the handler's default
	// max_request_body.
	MaxBody int64 `json:"max_body,omitempty"`

	globs []glob.Pattern
}

// CaddyModule returns the Caddy module information.
func (Model) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.matchers.llm_model",
		New: func() caddy.Module { return new(Model) },
	}
}

// Provision compiles the patterns.
func (m *Model) Provision(caddy.Context) error {
	if len(m.Models) == 0 {
		return fmt.Errorf("llm_model: at least one model pattern is required")
	}
	m.globs = m.globs[:0]
	for _, p := range m.Models {
		g, err := glob.Compile(p)
		if err != nil {
			return fmt.Errorf("llm_model: %v", err)
		}
		m.globs = append(m.globs, g)
	}
	if m.MaxBody == 0 {
		m.MaxBody = DefaultMaxBody
	}
	return nil
}

// Validate checks the body limit.
func (m *Model) Validate() error {
	if m.MaxBody < 0 {
		return fmt.Errorf("llm_model: max_body must be positive, got %d", m.MaxBody)
	}
	return nil
}

// UnmarshalCaddyfile sets up the matcher from Caddyfile tokens. Syntax:
//
//	llm_model <glob>...
//
// Each glob is a model name in which '*' matches any run of characters,
// for example "@claude llm_model claude-* anthropic/*". Several llm_model
// lines in one named matcher add their patterns together.
func (m *Model) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	for d.Next() {
		args := d.RemainingArgs()
		if len(args) == 0 {
			return d.ArgErr()
		}
		for _, a := range args {
			if _, err := glob.Compile(a); err != nil {
				return d.Errf("llm_model: %v", err)
			}
		}
		m.Models = append(m.Models, args...)
		if d.NextBlock(0) {
			return d.Err("llm_model takes no block")
		}
	}
	return nil
}

// Match reports whether the request asks for a matching model; a body that
// cannot be read does not match.
func (m Model) Match(r *http.Request) bool {
	ok, _ := m.MatchWithError(r)
	return ok
}

// MatchWithError reports whether the request asks for a model that matches
// one of the patterns. The error is a failure to read the body.
func (m Model) MatchWithError(r *http.Request) (bool, error) {
	model, err := requestedModel(r, m.MaxBody)
	if err != nil || model == "" {
		return false, err
	}
	for i := range m.globs {
		if m.globs[i].Match(model, nil) {
			return true, nil
		}
	}
	return false, nil
}

// requestedModel returns the model a generation request names: the model in
// the path of a Gemini or Vertex request, else the model member of a JSON
// body of at most limit bytes. It restores r.Body so that it can be read
// again in full. An empty result means no model was found.
func requestedModel(r *http.Request, limit int64) (string, error) {
	if _, model, _, ok := codec.MatchRoute(r.URL.Path); ok && model != "" {
		return strings.TrimPrefix(model, "models/"), nil
	}
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength > limit {
		return "", nil
	}
	prefix, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = &prefixedBody{Reader: io.MultiReader(bytes.NewReader(prefix), r.Body), body: r.Body}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return "", nil
		}
		return "", caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("llm_model: reading the request body: %w", err))
	}
	if int64(len(prefix)) > limit {
		return "", nil
	}
	if m := gjson.GetBytes(prefix, "model"); m.Type == gjson.String {
		return m.Str, nil
	}
	return "", nil
}

// prefixedBody is a request body whose first bytes were read ahead and are
// served again before the rest; closing it closes the original body.
type prefixedBody struct {
	io.Reader
	body io.ReadCloser
}

// Close closes the original body.
func (b *prefixedBody) Close() error { return b.body.Close() }

// Interface guards
var (
	_ caddy.Provisioner                 = (*Model)(nil)
	_ caddy.Validator                   = (*Model)(nil)
	_ caddyfile.Unmarshaler             = (*Model)(nil)
	_ caddyhttp.RequestMatcherWithError = (*Model)(nil)
	_ caddyhttp.RequestMatcher          = (*Model)(nil)
)
