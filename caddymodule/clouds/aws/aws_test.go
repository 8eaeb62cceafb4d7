package aws

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

func TestSet(t *testing.T) {
	var a Cloud
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"aws_region", []string{"us-east-1"}, ""},
		{"aws_host", []string{"h"}, ""},
		{"aws_profile", []string{"a", "b"}, ""},
		{"aws_profile", []string{"c"}, ""},
		{"aws_profile", nil, "aws_profile takes the name of a profile, or several"},
		{"aws_region", nil, "aws_region takes one argument"},
		{"aws_zone", []string{"x"}, `unknown subdirective "aws_zone"`},
	} {
		err := a.Set(tc.name, tc.args)
		if (err == nil) != (tc.wantErr == "") || err != nil && err.Error() != tc.wantErr {
			t.Errorf("Set(%s, %v) = %v, want %q", tc.name, tc.args, err, tc.wantErr)
		}
	}
	if a.Region != "us-east-1" || a.Host != "h" || !slices.Equal(a.Profiles, []string{"a", "b", "c"}) {
		t.Errorf("settings %+v", a)
	}
	if got := a.Settings(); !slices.Equal(got, []string{"aws_region", "aws_profile", "aws_host"}) {
		t.Errorf("Settings() = %v", got)
	}
	if got := (&Cloud{}).Settings(); got != nil {
		t.Errorf("empty settings name %v", got)
	}
	if !slices.Equal(a.Prefixes(), []string{"aws_"}) {
		t.Errorf("Prefixes() = %v", a.Prefixes())
	}
	var at codec.Location
	a.Locate(&at)
	if at != (codec.Location{}) {
		t.Errorf("AWS names no location in paths: %+v", at)
	}
	if id := a.CaddyModule().ID; id != "http.handlers.llmbridge.clouds.aws" {
		t.Errorf("module ID %s", id)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cloud    Cloud
		upstream codec.Protocol
		wantErr  string
	}{
		{"complete", Cloud{Region: "us-east-1", Profiles: []string{"p"}}, codec.Bedrock, ""},
		{"toward another cloud", Cloud{Region: "us-east-1"}, codec.Gemini, "aws_region, aws_profile and aws_host are only for the bedrock and bedrock-anthropic upstreams, not gemini"},
		{"host with a path", Cloud{Region: "us-east-1", Host: "h/x"}, codec.Bedrock, `aws_host: "h/x" is not a host name`},
		{"no region", Cloud{}, codec.BedrockAnthropic, "upstream bedrock-anthropic requires aws_region"},
		{"region with a colon", Cloud{Region: "us:1"}, codec.Bedrock, `aws_region: "us:1" is not an AWS region`},
		{"empty profile", Cloud{Region: "us-east-1", Profiles: []string{"a", ""}}, codec.Bedrock, "aws_profile 1 is empty"},
		{"pool too large", Cloud{Region: "us-east-1", Profiles: slices.Repeat([]string{"p"}, clouds.MaxPoolMembers+1)}, codec.Bedrock, "a credential pool holds at most 4096 members, got 4097 aws_profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cloud.Check(tc.upstream, false)
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Check = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// isolate points the AWS chain at the environment alone.
func isolate(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_SESSION_TOKEN", "session")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// TestSign signs a request with the environment's credentials: the
// signature verifies, names the region and signs only what reverse_proxy
// leaves alone; the Host is the region's Bedrock Runtime.
func TestSign(t *testing.T) {
	isolate(t)
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	kind, creds, err := (&Cloud{Region: "{env.REGION}"}).Authorize(ctx, func(s string) string { return strings.ReplaceAll(s, "{env.REGION}", "eu-west-3") })
	if err != nil || kind != "aws_profile" || len(creds) != 1 || creds[0].Signer == nil {
		t.Fatalf("Authorize = %s %+v %v", kind, creds, err)
	}
	s := creds[0].Signer
	if s.Host() != "bedrock-runtime.eu-west-3.amazonaws.com" || creds[0].Identity() != "aws_profile " {
		t.Errorf("host %s, identity %q", s.Host(), creds[0].Identity())
	}
	body := []byte(`{"messages":[]}`)
	r, _ := http.NewRequest("POST", "http://127.0.0.1:9/model/m/converse", nil)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Forwarded-For", "10.0.0.1")
	if cerr := s.Sign(r, body, zap.NewNop()); cerr != nil {
		t.Fatal(cerr)
	}
	auth := r.Header.Get("Authorization")
	if r.Host != s.Host() || !strings.Contains(auth, "/eu-west-3/bedrock/aws4_request") ||
		!strings.Contains(auth, "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token,") {
		t.Fatalf("Host %s, Authorization %s", r.Host, auth)
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := http.NewRequest("POST", "https://"+s.Host()+"/model/m/converse", nil)
	again.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), awssdk.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", SessionToken: "session"},
		again, hex.EncodeToString(sum[:]), "bedrock", "eu-west-3", at); err != nil {
		t.Fatal(err)
	}
	if again.Header.Get("Authorization") != auth {
		t.Errorf("the signature does not verify:\n got %s\nwant %s", auth, again.Header.Get("Authorization"))
	}

	// Without credentials: the client's answer is a 502, logged without
	// a secret.
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "")
	_, creds, err = (&Cloud{Region: "us-east-1", Host: "vpce.example"}).Authorize(ctx, func(s string) string { return s })
	if err != nil || creds[0].Signer.Host() != "vpce.example" {
		t.Fatalf("Authorize = %+v %v", creds, err)
	}
	r, _ = http.NewRequest("POST", "http://127.0.0.1:9/model/m/converse", nil)
	if cerr := creds[0].Signer.Sign(r, body, zap.NewNop()); cerr == nil || !strings.Contains(cerr.Error(), "could not obtain AWS credentials") {
		t.Errorf("Sign without credentials = %v", cerr)
	}
}

// TestProfiles gives each aws_profile its own signer, named by the
// profile, and reports a profile the configuration files lack.
func TestProfiles(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	credsFile := filepath.Join(dir, "credentials")
	if err := os.WriteFile(credsFile, []byte("[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = s1\n[prod]\naws_access_key_id = AKIDPROD\naws_secret_access_key = s2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", credsFile)
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	_, creds, err := (&Cloud{Region: "us-east-1", Profiles: []string{"dev", "prod"}}).Authorize(ctx, func(s string) string { return s })
	if err != nil || len(creds) != 2 || creds[0].Name != "aws_profile dev" || creds[1].Name != "aws_profile prod" {
		t.Fatalf("Authorize = %+v %v", creds, err)
	}
	if _, _, err := (&Cloud{Region: "us-east-1", Profiles: []string{"absent"}}).Authorize(ctx, func(s string) string { return s }); err == nil || !strings.Contains(err.Error(), "loading the AWS configuration") {
		t.Errorf("an absent profile: %v", err)
	}
}
