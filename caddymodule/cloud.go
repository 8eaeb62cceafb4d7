package caddymodule

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/observe"

	// The clouds llmbridge ships, registered in clouds.Namespace.
	_ "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	_ "github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
	_ "github.com/llmbridge/llmbridge/caddymodule/clouds/google"
	_ "github.com/llmbridge/llmbridge/caddymodule/match"
	"github.com/llmbridge/llmbridge/codec"
)

// settleCloud gives h the settings of its upstream's cloud among those
// its Caddyfile block gave (see clouds.Blocks.Settle).
func (h *Handler) settleCloud(b clouds.Blocks) (err error) {
	h.cloud, err = b.Settle(h.Upstream, h.Failover != nil, h.APIKey != "" || len(h.APIKeys) > 0)
	return err
}

// loadCloud loads the cloud module of the JSON configuration, when it has
// one.
func (h *Handler) loadCloud(ctx caddy.Context) error {
	if h.CloudRaw == nil {
		return nil
	}
	m, err := ctx.LoadModule(h, "CloudRaw")
	if err != nil {
		return fmt.Errorf("loading the cloud settings: %v", err)
	}
	c, ok := m.(clouds.Cloud)
	if !ok {
		return fmt.Errorf("module %T is not a cloud of llmbridge", m)
	}
	h.cloud = c
	return nil
}

// signUpstream signs r with the credential of x when it is a signer; it
// does nothing for the others.
func (h *Handler) signUpstream(r *http.Request, x *observe.Exchange, body []byte) *codec.Error {
	s := h.credentialOf(x).Signer
	if s == nil {
		return nil
	}
	return s.Sign(r, body, h.logger)
}

// noteSignatureRejected logs what to check when a Bedrock upstream
// rejected llmbridge's signature (403 InvalidSignatureException): most
// often reverse_proxy sent another Host than the one signed, as it does
// by default toward an HTTPS upstream (the upstream's address with its
// port).
func (h *Handler) noteSignatureRejected(status int, hdr http.Header) {
	if h.signedHost == "" || status != http.StatusForbidden || !strings.HasPrefix(hdr.Get("X-Amzn-Errortype"), "InvalidSignatureException") {
		return
	}
	h.logger.Warn("the Bedrock upstream rejected the request's signature; reverse_proxy must send the Host that was signed",
		zap.String("signed_host", h.signedHost), zap.String("fix", "header_up Host "+h.signedHost))
}
