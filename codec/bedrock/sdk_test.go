package bedrock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/auth/bearer"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// The AWS SDK for Go is the reference for the wire format: these tests
// have it serialise requests for the decoder and deserialise what the
// encoders write.

// sdkModel is a model id with the characters the SDK escapes in paths.
const sdkModel = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// roundTrip is an HTTP client made of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) Do(r *http.Request) (*http.Response, error) { return f(r) }

// sdkClient returns a Bedrock Runtime client whose HTTP requests go to
// serve, authenticated with a Bedrock API key.
func sdkClient(serve roundTrip) *bedrockruntime.Client {
	return bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("https://bedrock-runtime.test"),
		HTTPClient:   serve,
		Retryer:      aws.NopRetryer{},
		BearerAuthTokenProvider: bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
			return bearer.Token{Value: "key"}, nil
		}),
		AuthSchemePreference: []string{"httpBearerAuth"},
	})
}

// reply returns an HTTP response with status, content type and body.
func reply(status int, contentType string, body []byte) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {contentType}},
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
}

// sdkInput is a Converse request with every kind of content the codec
// translates, as an SDK user builds it.
func sdkInput() *bedrockruntime.ConverseInput {
	png := []byte{0x89, 'P', 'N', 'G'}
	return &bedrockruntime.ConverseInput{
		ModelId: aws.String(sdkModel),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "Be brief."}},
		Messages: []types.Message{
			{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
				&types.ContentBlockMemberText{Value: "Weather in \"Paris\"?"},
				&types.ContentBlockMemberImage{Value: types.ImageBlock{Format: types.ImageFormatPng, Source: &types.ImageSourceMemberBytes{Value: png}}},
				&types.ContentBlockMemberDocument{Value: types.DocumentBlock{Format: types.DocumentFormatPdf, Name: aws.String("Report (2025)"),
					Source: &types.DocumentSourceMemberBytes{Value: []byte("%PDF-")}}},
			}},
			{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
				&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{
					Text: aws.String("Look it up."), Signature: aws.String("c2lnbmF0dXJl")}}},
				&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: []byte("secret")}},
				&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("get_weather"),
					Input: document.NewLazyDocument(map[string]any{"city": "Paris"})}},
			}},
			{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
				&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: aws.String("tooluse_1"), Status: types.ToolResultStatusError,
					Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: "no data"},
						&types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument(map[string]any{"code": 7})}}}},
			}},
		},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(4000), Temperature: aws.Float32(0.5), StopSequences: []string{"END"}},
		ToolConfig: &types.ToolConfiguration{
			Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("get_weather"), Description: aws.String("Weather."),
				InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object"})}}}},
			ToolChoice: &types.ToolChoiceMemberAuto{Value: types.AutoToolChoice{}},
		},
		AdditionalModelRequestFields: document.NewLazyDocument(map[string]any{
			"thinking": map[string]any{"type": "enabled", "budget_tokens": 2048}, "top_k": 40}),
	}
}

// TestSDKRequest decodes the body the SDK serialises for a Converse call,
// checks that the path the SDK calls is the one UpstreamPath returns, and
// that the decoded request survives an encode and decode unchanged.
func TestSDKRequest(t *testing.T) {
	var body []byte
	var path string
	client := sdkClient(func(r *http.Request) (*http.Response, error) {
		body, _ = io.ReadAll(r.Body)
		path = r.URL.EscapedPath()
		return reply(500, "application/json", []byte(`{"message":"stop here"}`)), nil
	})
	_, _ = client.Converse(context.Background(), sdkInput())
	if want, _ := (converseCodec{}).UpstreamPath(codec.Bedrock, codec.Location{}, sdkModel, false); path != want {
		t.Errorf("SDK path %s, UpstreamPath %s", path, want)
	}
	var req codec.Request
	if err := codec.DecodeRequest(codec.Bedrock, body, &req); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	m := req.Messages
	switch {
	case len(req.System) != 1 || req.System[0].Text != "Be brief.":
		t.Errorf("system %+v", req.System)
	case len(m) != 3 || len(m[0].Parts) != 3 || len(m[1].Parts) != 3 || len(m[2].Parts) != 1:
		t.Fatalf("messages %+v", m)
	}
	if p := m[0].Parts[1]; p.Type != codec.PartImage || p.MediaType != "image/png" || p.Data != "iVBORw==" {
		t.Errorf("image %+v", p)
	}
	if p := m[0].Parts[2]; p.Type != codec.PartDocument || p.MediaType != "application/pdf" || p.Text != "Report (2025)" {
		t.Errorf("document %+v", p)
	}
	if p := m[1].Parts[0]; p.Text != "Look it up." || p.Signature != "c2lnbmF0dXJl" || p.Origin != mapping.FamilyAnthropic {
		t.Errorf("reasoning %+v", p)
	}
	if p := m[1].Parts[1]; !p.Redacted || p.Signature != "c2VjcmV0" {
		t.Errorf("redacted %+v", p)
	}
	if p := m[1].Parts[2]; p.ToolCallID != "tooluse_1" || p.ToolName != "get_weather" || p.Arguments != `{"city":"Paris"}` {
		t.Errorf("tool use %+v", p)
	}
	if p := m[2].Parts[0]; !p.IsError || p.ToolName != "get_weather" || len(p.Content) != 2 || p.Content[1].Text != `{"code":7}` {
		t.Errorf("tool result %+v", p)
	}
	if req.MaxTokens.Value != 4000 || req.Temperature.Value != 0.5 || req.StopSequences[0] != "END" || req.TopK.Value != 40 ||
		req.Reasoning.Budget.Value != 2048 || req.ToolChoice.Mode != codec.ToolChoiceAuto || len(req.Tools) != 1 {
		t.Errorf("settings %+v", req)
	}
	out, err := codec.AppendRequest(nil, codec.Bedrock, &req, codec.EncodeOptions{Model: sdkModel})
	if err != nil {
		t.Fatal(err)
	}
	var back codec.Request
	if err := codec.DecodeRequest(codec.Bedrock, out, &back); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	back.Model = req.Model
	if !codectest.EqualDecoded(back, req) {
		t.Errorf("round trip\n%+v\nwant\n%+v\n%s", back, req, out)
	}
}

// TestSDKResponse has the SDK read a response the encoder wrote.
func TestSDKResponse(t *testing.T) {
	resp := codec.Response{
		Content: []codec.Part{
			{Type: codec.PartReasoning, Text: "Think.", Signature: "c2ln", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Redacted: true, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Text: "Gemini thought.", Signature: "Z2Vt", Origin: mapping.FamilyGemini},
			{Type: codec.PartText, Text: "Calling."},
			{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
		},
		StopReason: mapping.StopToolUse,
		Usage:      codec.Usage{Known: true, InputTokens: 100, CacheReadTokens: 60, CacheWriteTokens: 10, OutputTokens: 20},
	}
	body, err := codec.AppendResponse(nil, codec.Bedrock, &resp)
	if err != nil {
		t.Fatal(err)
	}
	client := sdkClient(func(*http.Request) (*http.Response, error) { return reply(200, "application/json", body), nil })
	out, err := client.Converse(context.Background(), sdkInput())
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok || len(msg.Value.Content) != 5 {
		t.Fatalf("output %#v\n%s", out.Output, body)
	}
	c := msg.Value.Content
	if r, ok := c[0].(*types.ContentBlockMemberReasoningContent).Value.(*types.ReasoningContentBlockMemberReasoningText); !ok ||
		*r.Value.Text != "Think." || *r.Value.Signature != "c2ln" {
		t.Errorf("reasoning %#v", c[0])
	}
	if r, ok := c[1].(*types.ContentBlockMemberReasoningContent).Value.(*types.ReasoningContentBlockMemberRedactedContent); !ok || string(r.Value) != "secret" {
		t.Errorf("redacted %#v", c[1])
	}
	if r, ok := c[2].(*types.ContentBlockMemberReasoningContent).Value.(*types.ReasoningContentBlockMemberReasoningText); !ok ||
		!strings.HasPrefix(*r.Value.Signature, mapping.EnvelopePrefix) {
		t.Errorf("foreign reasoning %#v", c[2])
	}
	if tc, ok := c[4].(*types.ContentBlockMemberToolUse); !ok || *tc.Value.ToolUseId != "call_1" {
		t.Errorf("tool use %#v", c[4])
	} else {
		var input map[string]any
		if err := tc.Value.Input.UnmarshalSmithyDocument(&input); err != nil || input["city"] != "Paris" {
			t.Errorf("tool input %v %v", input, err)
		}
	}
	u := out.Usage
	if out.StopReason != types.StopReasonToolUse || *u.InputTokens != 30 || *u.CacheReadInputTokens != 60 || *u.CacheWriteInputTokens != 10 ||
		*u.OutputTokens != 20 || *u.TotalTokens != 120 || out.Metrics == nil {
		t.Errorf("stop %s usage %+v", out.StopReason, u)
	}
}

// TestSDKError has the SDK read an error body the codec wrote, without
// the type header (the SDK then reads __type).
func TestSDKError(t *testing.T) {
	for _, tt := range []struct {
		kind mapping.ErrorKind
		want any
	}{
		{mapping.ErrRateLimit, new(*types.ThrottlingException)},
		{mapping.ErrInvalidRequest, new(*types.ValidationException)},
		{mapping.ErrAuthentication, nil},
	} {
		e := codec.NewError(tt.kind, "nope")
		body := codec.AppendError(nil, codec.Bedrock, e)
		client := sdkClient(func(*http.Request) (*http.Response, error) {
			return reply(codec.ClientStatus(codec.Bedrock, e), "application/json", body), nil
		})
		_, err := client.Converse(context.Background(), sdkInput())
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("%v: %v", tt.kind, err)
		}
		if tt.want != nil && !errors.As(err, tt.want) {
			t.Errorf("%v: %T %v, want %T", tt.kind, err, err, tt.want)
		}
	}
}

// sdkStream has the SDK read the stream the encoder writes for evs,
// framed as an AWS event stream, and returns its events and error.
func sdkStream(t *testing.T, evs []codec.Event) ([]types.ConverseStreamOutput, error) {
	t.Helper()
	sse := codectest.EncodeStream(codec.Bedrock, &codec.Request{Stream: true}, evs)
	framed, err := eventstream.NewWriter(1<<20).Push(nil, []byte(sse))
	if err != nil {
		t.Fatal(err)
	}
	client := sdkClient(func(*http.Request) (*http.Response, error) {
		return reply(200, "application/vnd.amazon.eventstream", framed), nil
	})
	in := sdkInput()
	out, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{ModelId: in.ModelId, Messages: in.Messages})
	if err != nil {
		t.Fatal(err)
	}
	stream := out.GetStream()
	defer stream.Close()
	var got []types.ConverseStreamOutput
	for ev := range stream.Events() {
		got = append(got, ev)
	}
	return got, stream.Err()
}

// TestSDKStream has the SDK read a stream with reasoning, redacted
// reasoning, text and a tool call, the stop reason and the usage.
func TestSDKStream(t *testing.T) {
	evs := []codec.Event{
		{Type: codec.EventStart},
		{Type: codec.EventPartStart, Index: 0, Part: codec.PartReasoning},
		{Type: codec.EventPartDelta, Index: 0, Text: "Think."},
		{Type: codec.EventPartStop, Index: 0, Signature: "c2ln", Origin: mapping.FamilyAnthropic},
		{Type: codec.EventPartStart, Index: 1, Part: codec.PartReasoning, Redacted: true},
		{Type: codec.EventPartStop, Index: 1, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
		{Type: codec.EventPartStart, Index: 2, Part: codec.PartText},
		{Type: codec.EventPartDelta, Index: 2, Text: "Hi \"there\""},
		{Type: codec.EventPartStop, Index: 2},
		{Type: codec.EventPartStart, Index: 3, Part: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f"},
		{Type: codec.EventPartDelta, Index: 3, Text: `{"a":`},
		{Type: codec.EventPartDelta, Index: 3, Text: `1}`},
		{Type: codec.EventPartStop, Index: 3},
		{Type: codec.EventStop, StopReason: mapping.StopToolUse},
		{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 5}},
		{Type: codec.EventEnd},
	}
	got, err := sdkStream(t, evs)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var text, input, sig string
	var redacted []byte
	for _, ev := range got {
		switch v := ev.(type) {
		case *types.ConverseStreamOutputMemberMessageStart:
			kinds = append(kinds, "start")
		case *types.ConverseStreamOutputMemberContentBlockStart:
			kinds = append(kinds, "block_start")
			if tu := v.Value.Start.(*types.ContentBlockStartMemberToolUse); *tu.Value.Name != "f" || *tu.Value.ToolUseId != "call_1" {
				t.Errorf("tool start %+v", tu.Value)
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			kinds = append(kinds, "delta")
			switch d := v.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				text += d.Value
			case *types.ContentBlockDeltaMemberToolUse:
				input += *d.Value.Input
			case *types.ContentBlockDeltaMemberReasoningContent:
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberSignature:
					sig = r.Value
				case *types.ReasoningContentBlockDeltaMemberRedactedContent:
					redacted = r.Value
				}
			}
		case *types.ConverseStreamOutputMemberContentBlockStop:
			kinds = append(kinds, "block_stop")
		case *types.ConverseStreamOutputMemberMessageStop:
			kinds = append(kinds, "stop:"+string(v.Value.StopReason))
		case *types.ConverseStreamOutputMemberMetadata:
			kinds = append(kinds, "metadata")
			if *v.Value.Usage.InputTokens != 10 || *v.Value.Usage.OutputTokens != 5 || *v.Value.Usage.TotalTokens != 15 {
				t.Errorf("usage %+v", v.Value.Usage)
			}
		}
	}
	want := "start delta delta block_stop delta block_stop delta block_stop block_start delta delta block_stop stop:tool_use metadata"
	if strings.Join(kinds, " ") != want || text != `Hi "there"` || input != `{"a":1}` || sig != "c2ln" || string(redacted) != "secret" {
		t.Errorf("events %v text %q input %q signature %q redacted %q", kinds, text, input, sig, redacted)
	}
}

// TestSDKStreamException has the SDK read an error at the end of a stream
// as the exception of its kind.
func TestSDKStreamException(t *testing.T) {
	_, err := sdkStream(t, []codec.Event{
		{Type: codec.EventStart},
		{Type: codec.EventError, Err: codec.NewError(mapping.ErrRateLimit, "slow down")},
	})
	var te *types.ThrottlingException
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "slow down") {
		t.Errorf("%T %v", err, err)
	}
}
