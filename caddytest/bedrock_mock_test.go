package caddytest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// The AWS credentials of the test process: llmbridge's sites without
// api_key sign their Bedrock requests with them (the standard chain reads
// the environment), and the mocks verify the signatures with them.
const (
	awsAccessKeyID     = "AKIDLLMBRIDGETEST"
	awsSecretAccessKey = "llmbridge-test-secret-access-key"
	awsSessionToken    = "llmbridge-test-session-token"
)

// awsProfiles are the profiles of the test's shared credentials file, by
// name: a pool of aws_profile signs with them (the environment's
// credentials sign for the standard chain, which names no profile).
var awsProfiles = map[string]aws.Credentials{
	"llmbridge-a": {AccessKeyID: "AKIDLLMBRIDGEPROFILEA", SecretAccessKey: "llmbridge-profile-a-secret", SessionToken: awsSessionToken},
	"llmbridge-b": {AccessKeyID: "AKIDLLMBRIDGEPROFILEB", SecretAccessKey: "llmbridge-profile-b-secret", SessionToken: awsSessionToken},
}

// awsCredentials returns the test's credentials of access key id, or
// false.
func awsCredentials(id string) (aws.Credentials, bool) {
	if id == awsAccessKeyID {
		return aws.Credentials{AccessKeyID: awsAccessKeyID, SecretAccessKey: awsSecretAccessKey, SessionToken: awsSessionToken}, true
	}
	for _, c := range awsProfiles {
		if c.AccessKeyID == id {
			return c, true
		}
	}
	return aws.Credentials{}, false
}

// setAWSEnvironment gives the process the test's AWS credentials, and a
// shared credentials file in dir with awsProfiles, and keeps the AWS
// chain away from the machine's own configuration and metadata services.
func setAWSEnvironment(dir string) error {
	var file strings.Builder
	for name, c := range awsProfiles {
		fmt.Fprintf(&file, "[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\naws_session_token = %s\n\n", name, c.AccessKeyID, c.SecretAccessKey, c.SessionToken)
	}
	credentials := filepath.Join(dir, "aws-credentials")
	if err := os.WriteFile(credentials, []byte(file.String()), 0o600); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           awsAccessKeyID,
		"AWS_SECRET_ACCESS_KEY":       awsSecretAccessKey,
		"AWS_SESSION_TOKEN":           awsSessionToken,
		"AWS_CONFIG_FILE":             os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE": credentials,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_PROFILE":                 "",
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// bedrockBetas are the anthropic_beta values Bedrock documents for Claude;
// the mock rejects others, as Bedrock does ("invalid beta flag").
var bedrockBetas = map[string]bool{
	"computer-use-2024-10-22": true, "computer-use-2025-01-24": true, "token-efficient-tools-2025-02-19": true,
	"interleaved-thinking-2025-05-14": true, "output-128k-2025-02-19": true, "dev-full-thinking-2025-05-14": true,
	"context-1m-2025-08-07": true, "context-management-2025-06-27": true, "effort-2025-11-24": true,
	"tool-search-tool-2025-10-19": true, "tool-examples-2025-10-29": true,
}

// validateBedrockBody checks what Bedrock requires of an InvokeModel body
// for Claude beyond the Messages API's own rules: no model (it is in the
// path), Bedrock's anthropic_version, and only betas Bedrock carries.
func validateBedrockBody(root gjson.Result) []string {
	var problems []string
	if root.Get("model").Exists() {
		problems = append(problems, "model must not be in the body on Bedrock (it is in the path)")
	}
	if v := root.Get("anthropic_version").String(); v != bedrockAnthropicVersion {
		problems = append(problems, fmt.Sprintf("anthropic_version %q, want %q", v, bedrockAnthropicVersion))
	}
	if betas := root.Get("anthropic_beta"); betas.Exists() {
		if !betas.IsArray() {
			problems = append(problems, "anthropic_beta must be an array of strings")
		}
		for _, b := range betas.Array() {
			if !bedrockBetas[b.String()] {
				problems = append(problems, fmt.Sprintf("invalid beta flag %s", b.Raw))
			}
		}
	}
	return problems
}

// validateAWSCredential checks a Bedrock request's credential: a Bedrock
// API key as a bearer token, or a SigV4 signature that verifies with the
// test's credentials for the region's Bedrock Runtime endpoint, signing
// its Host and Content-Type.
func validateAWSCredential(rec *recordedRequest) []string {
	h := rec.Header
	var problems []string
	for _, n := range []string{"X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Anthropic-Version", "Anthropic-Beta"} {
		if len(h.Values(n)) > 0 {
			problems = append(problems, "unexpected header "+n+" for Bedrock")
		}
	}
	auth := h.Get("Authorization")
	switch {
	case strings.HasPrefix(auth, "Bearer ") && len(auth) > len("Bearer "):
		if h.Get("X-Amz-Date") != "" || h.Get("X-Amz-Security-Token") != "" {
			problems = append(problems, "a bearer token with SigV4 headers")
		}
		return problems
	case strings.HasPrefix(auth, "AWS4-HMAC-SHA256 "):
		if err := verifySigV4(rec); err != nil {
			problems = append(problems, "SigV4: "+err.Error())
		}
		return problems
	}
	return append(problems, fmt.Sprintf("Authorization %q, want Bearer <Bedrock API key> or a SigV4 signature", auth))
}

// verifySigV4 signs rec again with the test's credentials of the access
// key it names (the environment's, or a profile's), at the time and over
// the headers its signature names, and compares the signatures.
func verifySigV4(rec *recordedRequest) error {
	auth := rec.Header.Get("Authorization")
	signed := ""
	for _, part := range strings.Split(strings.TrimPrefix(auth, "AWS4-HMAC-SHA256 "), ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "SignedHeaders="); ok {
			signed = v
		}
	}
	creds, known := awsCredentials(sigV4AccessKey(auth))
	if !known || !strings.Contains(auth, "/"+awsRegion+"/bedrock/aws4_request") {
		return fmt.Errorf("credential scope of %q, want one of the test's access keys …/%s/bedrock/aws4_request", auth, awsRegion)
	}
	if host := rec.Host; host != "bedrock-runtime."+awsRegion+".amazonaws.com" {
		return fmt.Errorf("Host %q, want the region's Bedrock Runtime endpoint", host)
	}
	if rec.Header.Get("X-Amz-Security-Token") != awsSessionToken {
		return fmt.Errorf("X-Amz-Security-Token %q, want the session token", rec.Header.Get("X-Amz-Security-Token"))
	}
	at, err := time.Parse("20060102T150405Z", rec.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("X-Amz-Date: %v", err)
	}
	req, err := http.NewRequest(rec.Method, "https://"+rec.Host+rec.Path, nil)
	if err != nil {
		return err
	}
	if rec.RawQuery != "" {
		req.URL.RawQuery = rec.RawQuery
	}
	for _, name := range strings.Split(signed, ";") {
		switch name {
		case "host", "x-amz-date", "x-amz-security-token":
		default:
			req.Header.Set(name, rec.Header.Get(name))
		}
	}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, sha256Hex(rec.Body), "bedrock", awsRegion, at); err != nil {
		return err
	}
	if got, want := auth, req.Header.Get("Authorization"); got != want {
		return fmt.Errorf("signature does not verify:\n got %s\nwant %s", got, want)
	}
	return nil
}

// sigV4AccessKey is the access key id of a SigV4 Authorization value, or
// "".
func sigV4AccessKey(auth string) string {
	_, rest, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// awsErrorType is the exception Bedrock names for an HTTP status.
func awsErrorType(status int) string {
	switch status {
	case 400:
		return "ValidationException"
	case 401:
		return "UnrecognizedClientException"
	case 403:
		return "AccessDeniedException"
	case 404:
		return "ResourceNotFoundException"
	case 408:
		return "ModelTimeoutException"
	case 424:
		return "ModelErrorException"
	case 429:
		return "ThrottlingException"
	case 503:
		return "ServiceUnavailableException"
	}
	return "InternalServerException"
}

// nativeErrorHeader is the header an upstream of protocol p sends beside
// an error body: Bedrock's error type.
func nativeErrorHeader(p proto, status int) http.Header {
	if !p.isAWS() {
		return nil
	}
	return http.Header{"X-Amzn-Errortype": {awsErrorType(status) + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}}
}

// withNativeErrorHeader is hdr with the header an upstream of protocol p
// sends beside an error body of status (nativeErrorHeader), in a copy.
func withNativeErrorHeader(p proto, status int, hdr http.Header) http.Header {
	out := hdr.Clone()
	for k, vs := range nativeErrorHeader(p, status) {
		out[k] = vs
	}
	return out
}

// awsStreamFramer turns the SSE frames of a mock's stream into the event
// stream Bedrock sends: each event in a chunk (InvokeModel) or a message
// of its name (Converse), an event named exception:<type> as that
// exception, and Anthropic's error event as the exception Bedrock raises
// instead.
type awsStreamFramer struct {
	w *eventstream.Writer
}

// frame returns the event stream bytes of one SSE frame.
func (f *awsStreamFramer) frame(frame string) string {
	if strings.HasPrefix(frame, "event: error\n") {
		data := gjson.Get(strings.TrimSpace(strings.TrimPrefix(frame[strings.Index(frame, "data: "):], "data: ")), "error")
		typ := map[string]string{"overloaded_error": "serviceUnavailableException", "rate_limit_error": "throttlingException",
			"invalid_request_error": "validationException"}[data.Get("type").Str]
		if typ == "" {
			typ = "internalServerException"
		}
		return string(eventstream.AppendMessage(nil, "exception:"+typ, []byte(`{"message":`+jsonString(data.Get("message").Str)+`}`)))
	}
	out, err := f.w.Push(nil, []byte(frame))
	if err != nil {
		panic("framing a mock stream: " + err.Error())
	}
	return string(out)
}

// sigV4Credential is what credential reports for a request signed with
// the test's AWS credentials.
const sigV4Credential = "sigv4:" + awsAccessKeyID

// plainCredential is the credential an upstream of protocol up receives
// from a site without api_key: the client's own key, except on Bedrock,
// where llmbridge signs with its AWS credentials.
func plainCredential(up proto) string {
	if up.isAWS() {
		return sigV4Credential
	}
	return clientKey
}

// upstreamModel is the model an upstream of protocol up receives for the
// model a client of protocol cp names when no rule routes it: the model
// itself, except that a Bedrock model id going out of Bedrock becomes the
// vendor's name.
func upstreamModel(cp, up proto, model string) string {
	if cp.isAWS() && !up.isAWS() {
		return bedrockVendorModel(model)
	}
	return model
}

// upstreamConversation is conv as an upstream of protocol up receives it
// from a client of protocol cp (upstreamModel).
func upstreamConversation(cp, up proto, conv conversation) conversation {
	conv.Model = upstreamModel(cp, up, conv.Model)
	return conv
}

// bedrockVendorModel is the vendor's name of a Bedrock model id, which a
// Bedrock response names too: without the vendor, region prefix or
// version suffix (anthropic.claude-sonnet-4-20250514-v1:0 is
// claude-sonnet-4-20250514).
func bedrockVendorModel(id string) string {
	if i := strings.Index(id, "anthropic."); i >= 0 {
		id = id[i+len("anthropic."):]
	}
	if i := strings.LastIndex(id, "-v"); i > 0 && strings.Contains(id[i:], ":") {
		id = id[:i]
	}
	return id
}

// sha256Hex is the hex SHA-256 of b, SigV4's payload hash.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// newAWSStreamFramer returns the framer of a mock of protocol p's streams,
// or nil for a protocol that streams SSE: InvokeModel's chunks for
// Anthropic on Bedrock, an event message per event for Converse.
func newAWSStreamFramer(p proto) *awsStreamFramer {
	switch p {
	case bedrockAnthropic:
		return &awsStreamFramer{w: eventstream.NewChunkWriter(1 << 24)}
	case bedrockConverse:
		return &awsStreamFramer{w: eventstream.NewWriter(1 << 24)}
	}
	return nil
}

// clientStreamType is the media type of the streams a client of protocol
// cp reads.
func clientStreamType(cp proto) string {
	if cp.isAWS() {
		return eventstream.ContentType
	}
	return "text/event-stream"
}

// unframeClientStream reads a Bedrock client's event stream as SSE text,
// the way the SDKs' Bedrock mode does: each chunk's event (a Converse
// stream has no chunks: each message is its event), and exceptions as
// events named "exception:<type>".
func unframeClientStream(body []byte) ([]byte, error) {
	r := eventstream.NewChunkReader(1 << 26)
	out, err := r.Push(nil, body)
	if err == nil && r.Pending() > 0 {
		err = fmt.Errorf("the stream ends within a message (%d bytes)", r.Pending())
	}
	return out, err
}

// cloudSettings are the llmbridge settings of a site whose upstream is of
// protocol p: the Vertex project and location, or the AWS region.
func cloudSettings(p proto) string {
	if p.isAWS() {
		return "\t\taws_region " + awsRegion + "\n"
	}
	return "\t\tvertex_project " + vertexProject + "\n\t\tvertex_location " + vertexLocation + "\n"
}
