package aws

import (
	"fmt"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
)

func init() {
	caddy.RegisterModule(Cloud{})
}

// Cloud is the AWS settings of the Amazon Bedrock upstreams (bedrock,
// bedrock-anthropic): the region and host their requests are signed for
// and the profiles whose credentials sign them. In a Caddyfile they are
// the aws_* subdirectives of llmbridge; in JSON the handler's "cloud"
// object with "name": "aws".
type Cloud struct {
	// Region is the AWS region (aws_region), for example us-east-1:
	// requests are signed for bedrock-runtime.{region}.amazonaws.com and
	// carry it as their Host. Required.
	Region string `json:"region,omitempty"`

	// Profiles are profiles of the shared AWS configuration files whose
	// credentials sign requests (aws_profile). None uses the standard
	// chain (environment, the default profile or AWS_PROFILE, web
	// identity, container and instance roles). Several are a pool used
	// in turn, each with its own cooldown and taken out when the upstream
	// refuses it (see failover.Pool). Not used when the handler's api_key (a
	// Bedrock API key) is set.
	Profiles []string `json:"profiles,omitempty"`

	// Host is the Bedrock Runtime host that requests are signed for and
	// carry as their Host (aws_host), when it is not the region's
	// bedrock-runtime.{region}.amazonaws.com: a FIPS endpoint
	// (bedrock-runtime-fips.{region}.amazonaws.com) or a VPC endpoint's
	// own DNS name.
	Host string `json:"host,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Cloud) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  clouds.Namespace + ".aws",
		New: func() caddy.Module { return new(Cloud) },
	}
}

// Prefixes returns the prefixes of the subdirectives the cloud owns.
func (*Cloud) Prefixes() []string { return []string{"aws_"} }

// Set takes one of the cloud's Caddyfile subdirectives.
func (a *Cloud) Set(name string, args []string) error {
	switch name {
	case "aws_region", "aws_host":
		if len(args) != 1 {
			return fmt.Errorf("%s takes one argument", name)
		}
		if name == "aws_region" {
			a.Region = args[0]
		} else {
			a.Host = args[0]
		}
	case "aws_profile":
		// Several profiles, on one line or repeated: a pool.
		if len(args) == 0 {
			return fmt.Errorf("%s takes the name of a profile, or several", name)
		}
		a.Profiles = append(a.Profiles, args...)
	default:
		return fmt.Errorf("unknown subdirective %q", name)
	}
	return nil
}

// Settings names the subdirectives that are set.
func (a *Cloud) Settings() []string {
	return clouds.SetNames(
		clouds.Setting{Name: "aws_region", Set: a.Region != ""},
		clouds.Setting{Name: "aws_profile", Set: len(a.Profiles) > 0},
		clouds.Setting{Name: "aws_host", Set: a.Host != ""},
	)
}

// Check reports the first problem of the settings for an upstream of
// protocol p, keyed when api_key is configured.
func (a *Cloud) Check(p codec.Protocol, keyed bool) error {
	if p.Descriptor().Cloud != "aws" {
		return fmt.Errorf("aws_region, aws_profile and aws_host are only for the bedrock and bedrock-anthropic upstreams, not %s", p)
	}
	if strings.ContainsAny(a.Host, "/?#%@\\ \t") {
		return fmt.Errorf("aws_host: %q is not a host name (such as bedrock-runtime-fips.us-east-1.amazonaws.com)", a.Host)
	}
	if a.Region == "" {
		return fmt.Errorf("upstream %s requires aws_region: requests are signed for and sent to the region's Bedrock Runtime endpoint", p)
	}
	if strings.ContainsAny(a.Region, "/?#%@:\\ \t") {
		return fmt.Errorf("aws_region: %q is not an AWS region (such as us-east-1)", a.Region)
	}
	for i, name := range a.Profiles {
		if name == "" {
			return fmt.Errorf("aws_profile %d is empty", i)
		}
	}
	if len(a.Profiles) > clouds.MaxPoolMembers {
		return fmt.Errorf("a credential pool holds at most %d members, got %d aws_profile", clouds.MaxPoolMembers, len(a.Profiles))
	}
	return nil
}

// Locate writes the cloud's part of the upstream paths into at.
func (*Cloud) Locate(*codec.Location) {}

// Authorize prepares SigV4 signing when no api_key (a Bedrock API key,
// sent as a bearer token instead) is configured: a signer per profile, or
// one of the standard chain. The credentials come from the chain
// (environment, shared config and credentials files with the profile, web
// identity, container and instance roles), resolved and refreshed by
// aws-sdk-go-v2 when requests are signed, so that a missing credential is
// reported per request rather than stopping Caddy.
func (a *Cloud) Authorize(ctx caddy.Context, expand func(string) string) (string, []clouds.Credential, error) {
	region := expand(a.Region)
	host := expand(a.Host)
	if host == "" {
		host = bedrockHost(region)
	}
	profiles := a.Profiles
	if len(profiles) == 0 {
		profiles = []string{""}
	}
	creds := make([]clouds.Credential, 0, len(profiles))
	for _, profile := range profiles {
		opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(region)}
		if p := expand(profile); p != "" {
			opts = append(opts, awsconfig.WithSharedConfigProfile(p))
		}
		cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return "", nil, fmt.Errorf("loading the AWS configuration: %v", err)
		}
		creds = append(creds, clouds.Credential{Signer: &awsSigner{creds: cfg.Credentials, signer: v4.NewSigner(), region: region, host: host},
			Name: "aws_profile " + expand(profile)})
	}
	return "aws_profile", creds, nil
}

// Interface guards
var _ clouds.Cloud = (*Cloud)(nil)
