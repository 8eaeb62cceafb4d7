package caddymodule

import (
	"net/http"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
)

// failPolicy answers a rejection of the codecs or the policy and labels
// the errors_total metric with its class (unsupported_field,
// unknown_field, policy_strict) rather than its kind. Anthropic and Google
// error bodies have no param slot, so for their clients the message starts
// with the field path, as OpenAI clients read it from param.
func failPolicy(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error) {
	if e.Param != "" && !p.Descriptor().ErrorParam {
		c := *e
		c.Message = e.Error()
		e = &c
	}
	fail(w, x, p, e)
	switch e.Class {
	case codec.ClassCapability:
		x.ErrReason = "unsupported_field"
	case codec.ClassUnknownField:
		x.ErrReason = "unknown_field"
	case codec.ClassHint:
		x.ErrReason = "policy_strict"
	}
}
