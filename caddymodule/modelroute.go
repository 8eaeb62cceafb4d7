package caddymodule

import (
	"github.com/llmbridge/llmbridge/caddymodule/internal/glob"
	"github.com/llmbridge/llmbridge/codec"
)

// modelRoute is one compiled model rule.
type modelRoute struct {
	match  glob.Pattern
	target glob.Template
}

// compileModelRoute compiles one rule of the models list.
func compileModelRoute(r ModelRoute) (modelRoute, error) {
	g, err := glob.Compile(r.Match)
	if err != nil {
		return modelRoute{}, err
	}
	t, err := glob.CompileTemplate(r.Upstream, g.Wildcards())
	if err != nil {
		return modelRoute{}, err
	}
	return modelRoute{match: g, target: t}, nil
}

// routeModel returns the upstream model for the model a client of
// protocol client named: the target of the first rule whose pattern
// matches, else the vendor's name of a cloud's model id going out of the
// cloud (codec.Descriptor.VendorModel), else model itself. routed reports
// whether a rule matched.
func (h *Handler) routeModel(client codec.Protocol, model string) (upstream string, routed bool) {
	var caps [glob.MaxCaptures]string
	for i := range h.routes {
		r := &h.routes[i]
		if r.match.Match(model, &caps) {
			return r.target.Expand(&caps), true
		}
	}
	// A cloud's model id (Bedrock's us.anthropic.claude-…-v1:0) means
	// nothing to another provider, which knows the vendor's name. It is
	// the same model, named as the cloud itself names it in responses, so
	// responses keep the upstream's name.
	if d := client.Descriptor(); d != nil && d.VendorModel != nil && d.Cloud != h.upstream.Descriptor().Cloud {
		return d.VendorModel(model), false
	}
	return model, false
}
