package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// bedrockService is the SigV4 signing name of Amazon Bedrock Runtime.
const bedrockService = "bedrock"

// awsSigner signs requests to an Amazon Bedrock upstream with SigV4, with
// credentials from the standard AWS chain.
type awsSigner struct {
	creds  aws.CredentialsProvider
	signer *v4.Signer
	region string
	// host is the endpoint the signature names, and the Host header the
	// request carries: AWSHost, or Bedrock Runtime's in the region.
	host string
}

// sigV4Headers are the headers of a SigV4 signature beside Authorization.
// A client's signature never goes upstream: its session token is a
// credential, and the rest would not match the request llmbridge sends.
var sigV4Headers = [...]string{"X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"}

// bedrockHost is the Bedrock Runtime endpoint of region.
func bedrockHost(region string) string {
	return "bedrock-runtime." + region + ".amazonaws.com"
}

// provisionAWS prepares SigV4 signing for an upstream in the AWS cloud
// that has no api_key (a Bedrock API key, sent as a bearer token instead).
// The credentials come from the standard chain (environment, shared
// config and credentials files with AWSProfile, web identity, container
// and instance roles), resolved and refreshed by aws-sdk-go-v2 when
// requests are signed, so that a missing credential is reported per
// request rather than stopping Caddy.
func (h *Handler) provisionAWS(ctx context.Context, expand func(string) string) error {
	h.aws = nil
	if h.upstream.Descriptor().Cloud != "aws" || h.apiKey != "" || h.keys != nil {
		return nil
	}
	region := expand(h.AWSRegion)
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(region)}
	if p := expand(h.AWSProfile); p != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(p))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return fmt.Errorf("loading the AWS configuration: %v", err)
	}
	host := expand(h.AWSHost)
	if host == "" {
		host = bedrockHost(region)
	}
	h.aws = &awsSigner{creds: cfg.Credentials, signer: v4.NewSigner(), region: region, host: host}
	return nil
}

// sign signs r, whose body is body, for the upstream: it sets the Host
// and the SigV4 headers. Only Content-Type and Host are signed beside
// SigV4's own headers, so that what reverse_proxy adds or changes later
// (X-Forwarded-*, Accept-Encoding) leaves the signature valid.
func (s *awsSigner) sign(r *http.Request, body []byte, logger *zap.Logger) *codec.Error {
	ctx := r.Context()
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		// The error comes from the credential chain; it holds no secret.
		logger.Error("obtaining AWS credentials failed", zap.Error(err))
		return codec.NewError(mapping.ErrBadGateway, "the gateway could not obtain AWS credentials for its upstream")
	}
	sr, err := http.NewRequestWithContext(ctx, r.Method, "https://"+s.host+r.URL.RequestURI(), nil)
	if err != nil {
		return codec.NewError(mapping.ErrInvalidRequest, "the upstream request could not be signed: "+err.Error())
	}
	sr.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	sum := sha256.Sum256(body)
	if err := s.signer.SignHTTP(ctx, creds, sr, hex.EncodeToString(sum[:]), bedrockService, s.region, time.Now()); err != nil {
		logger.Error("signing the upstream request failed", zap.Error(err))
		return codec.NewError(mapping.ErrBadGateway, "the gateway could not sign its upstream request")
	}
	r.Host = s.host
	for _, name := range [...]string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token"} {
		if v := sr.Header.Get(name); v != "" {
			r.Header.Set(name, v)
		} else {
			r.Header.Del(name)
		}
	}
	return nil
}

// signUpstream signs r for an upstream that authenticates with SigV4; it
// does nothing for the others.
func (h *Handler) signUpstream(r *http.Request, body []byte) *codec.Error {
	if h.aws == nil {
		return nil
	}
	return h.aws.sign(r, body, h.logger)
}

// noteSignatureRejected logs what to check when a Bedrock upstream
// rejected llmbridge's signature (403 InvalidSignatureException): most
// often reverse_proxy sent another Host than the one signed, as it does
// by default toward an HTTPS upstream (the upstream's address with its
// port).
func (h *Handler) noteSignatureRejected(status int, hdr http.Header) {
	if h.aws == nil || status != http.StatusForbidden || !strings.HasPrefix(hdr.Get("X-Amzn-Errortype"), "InvalidSignatureException") {
		return
	}
	h.logger.Warn("the Bedrock upstream rejected the request's signature; reverse_proxy must send the Host that was signed",
		zap.String("signed_host", h.aws.host), zap.String("fix", "header_up Host "+h.aws.host))
}
