package wire

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func TestBedrockVendorModel(t *testing.T) {
	for id, want := range map[string]string{
		"anthropic.claude-sonnet-4-5-20250929-v1:0":       "claude-sonnet-4-5-20250929",
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":    "claude-sonnet-4-5-20250929",
		"global.anthropic.claude-opus-4-5-20251101-v1:0":  "claude-opus-4-5-20251101",
		"apac.anthropic.claude-3-5-sonnet-20241022-v2:0":  "claude-3-5-sonnet-20241022",
		"us-gov.anthropic.claude-3-haiku-20240307-v1:0":   "claude-3-haiku-20240307",
		"meta.llama3-70b-instruct-v1":                     "llama3-70b-instruct",
		"amazon.nova-pro-v1:0":                            "nova-pro",
		"claude-sonnet-4-5":                               "claude-sonnet-4-5",
		"arn:aws:bedrock:us-east-1:1:inference-profile/x": "arn:aws:bedrock:us-east-1:1:inference-profile/x",
		"us.":          "us.",
		"anthropic.":   "anthropic.",
		"x.model-vx:0": "model-vx:0",
	} {
		if got := BedrockVendorModel(id); got != want {
			t.Errorf("BedrockVendorModel(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestAWSPathSegment(t *testing.T) {
	for in, want := range map[string]string{
		"anthropic.claude-sonnet-4-5-20250929-v1:0":                       "anthropic.claude-sonnet-4-5-20250929-v1%3A0",
		"arn:aws:bedrock:us-east-1:123:application-inference-profile/abc": "arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Aapplication-inference-profile%2Fabc",
		"plain_~name": "plain_~name",
		"a b?c#":      "a%20b%3Fc%23",
	} {
		if got := AWSPathSegment(in); got != want {
			t.Errorf("AWSPathSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAWSErrors(t *testing.T) {
	var e codec.Error
	DecodeAWSError(gjson.Parse(`{"message":"slow down","__type":"com.amazon.coral#ThrottlingException"}`), &e)
	if e.Kind != mapping.ErrRateLimit || e.Code != "ThrottlingException" {
		t.Errorf("__type: %+v", e)
	}
	e = codec.Error{Kind: mapping.ErrAPI}
	DecodeAWSError(gjson.Parse(`{"code":"ValidationException:http://internal.amazon.com/coral/"}`), &e)
	if e.Kind != mapping.ErrInvalidRequest || e.Code != "ValidationException" {
		t.Errorf("code: %+v", e)
	}
	e = codec.Error{Kind: mapping.ErrAPI}
	DecodeAWSError(gjson.Parse(`{"message":"x"}`), &e)
	if e.Kind != mapping.ErrAPI || e.Code != "" {
		t.Errorf("no type: %+v", e)
	}
	for _, c := range []struct {
		e    codec.Error
		want string
	}{
		{codec.Error{Kind: mapping.ErrRateLimit, Message: "slow \"down\""}, `{"message":"slow \"down\"","__type":"ThrottlingException"}`},
		{codec.Error{Kind: mapping.ErrInvalidRequest, Message: "m", Code: "invalid_request_error", Protocol: codec.AnthropicMessages}, `{"message":"m","__type":"ValidationException"}`},
	} {
		if got := string(AppendAWSError(nil, &c.e)); got != c.want {
			t.Errorf("AppendAWSError(%+v) = %s, want %s", c.e, got, c.want)
		}
	}
}
