package aws

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// bedrockService is the SigV4 signing name of Amazon Bedrock Runtime.
const bedrockService = "bedrock"

// awsSigner signs requests to an Amazon Bedrock upstream with SigV4, with
// credentials from the standard AWS chain (Cloud.credentials).
type awsSigner struct {
	creds  awssdk.CredentialsProvider
	signer *v4.Signer
	region string
	// host is the endpoint the signature names, and the Host header the
	// request carries: AWSHost, or Bedrock Runtime's in the region.
	host string
}

// SignatureHeaders are the headers of a SigV4 signature beside Authorization.
// A client's signature never goes upstream: its session token is a
// credential, and the rest would not match the request llmbridge sends.
var SignatureHeaders = [...]string{"X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"}

// bedrockHost is the Bedrock Runtime endpoint of region.
func bedrockHost(region string) string {
	return "bedrock-runtime." + region + ".amazonaws.com"
}

// Sign signs r, whose body is body, for the upstream: it sets the Host
// and the SigV4 headers. Only Content-Type and Host are signed beside
// SigV4's own headers, so that what reverse_proxy adds or changes later
// (X-Forwarded-*, Accept-Encoding) leaves the signature valid.
func (s *awsSigner) Sign(r *http.Request, body []byte, logger *zap.Logger) *codec.Error {
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

// Host is the endpoint the signature names.
func (s *awsSigner) Host() string { return s.host }

// Interface guards
var _ clouds.Signer = (*awsSigner)(nil)
