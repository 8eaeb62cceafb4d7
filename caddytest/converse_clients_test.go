package caddytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/auth/bearer"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// This file is the Converse client of the suites: the AWS SDK for Go's
// Bedrock Runtime client, with a Bedrock API key as its bearer token,
// speaking Converse and ConverseStream to the llmbridge site as its
// endpoint.

// converseClient speaks bedrock (Converse) through aws-sdk-go-v2's
// bedrockruntime.
type converseClient struct{}

// protocol is bedrock.
func (converseClient) protocol() proto { return bedrockConverse }

// newBedrockRuntime returns a Bedrock Runtime client for the llmbridge
// site at base over hc: region awsRegion, the client's key as a Bedrock
// API key (Authorization: Bearer), and no retries.
func newBedrockRuntime(base string, hc *http.Client) *bedrockruntime.Client {
	return newBedrockRuntimeKey(base, hc, clientKey)
}

// newBedrockRuntimeKey is newBedrockRuntime with key as the Bedrock API key.
func newBedrockRuntimeKey(base string, hc *http.Client, key string) *bedrockruntime.Client {
	return bedrockruntime.New(bedrockruntime.Options{
		Region:       awsRegion,
		BaseEndpoint: aws.String("https://" + strings.TrimPrefix(base, "http://")),
		HTTPClient:   plainHTTP{hc},
		Retryer:      aws.NopRetryer{},
		BearerAuthTokenProvider: bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
			return bearer.Token{Value: key}, nil
		}),
		AuthSchemePreference: []string{"httpBearerAuth"},
	})
}

// plainHTTP is the AWS SDK's HTTP client for the test sites: the SDK
// sends a bearer token only to https endpoints, so the client is given
// the site's address as https and plainHTTP sends its requests over plain
// HTTP, as a TLS-terminating proxy in front of llmbridge would.
//
// It also sends a copy of the request body. smithy-go closes the body it
// gave the transport as soon as the response headers arrive, which can be
// while net/http's write loop still reads it to check it has no bytes
// beyond its length; that read then fails and the transport closes the
// connection under the response being streamed ("use of closed network
// connection"). A body of its own keeps the write loop away from the
// SDK's.
type plainHTTP struct{ c *http.Client }

// Do sends r to its URL over plain HTTP, with a copy of its body.
func (h plainHTTP) Do(r *http.Request) (*http.Response, error) {
	u := *r.URL
	u.Scheme = "http"
	r = r.Clone(r.Context())
	r.URL = &u
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	return h.c.Do(r)
}

// converseMessages is conv's turns as Converse messages.
func converseMessages(conv conversation) []types.Message {
	var msgs []types.Message
	for _, t := range conv.Turns {
		role := types.ConversationRoleUser
		if t.Role == "assistant" {
			role = types.ConversationRoleAssistant
		}
		msgs = append(msgs, types.Message{Role: role, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: t.Text}}})
	}
	return msgs
}

// converseConfig is conv's settings: the inference configuration, and
// top_k as Claude's own field in additionalModelRequestFields.
func converseConfig(conv conversation) (*types.InferenceConfiguration, document.Interface) {
	ic := &types.InferenceConfiguration{
		MaxTokens:   aws.Int32(int32(conv.MaxTokens)),
		Temperature: aws.Float32(float32(conv.Temperature)),
		TopP:        aws.Float32(float32(conv.TopP)),
	}
	if len(conv.StopSequences) > 0 {
		ic.StopSequences = conv.StopSequences
	}
	if conv.TopK != 0 {
		return ic, document.NewLazyDocument(map[string]any{"top_k": conv.TopK})
	}
	return ic, nil
}

// converseSystem is a system prompt as Converse system blocks.
func converseSystem(s string) []types.SystemContentBlock {
	if s == "" {
		return nil
	}
	return []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: s}}
}

// generate sends conv with Converse.
func (converseClient) generate(ctx context.Context, base string, conv conversation) (result, error) {
	ic, extra := converseConfig(conv)
	out, err := newBedrockRuntime(base, sdkHTTPClient).Converse(ctx, &bedrockruntime.ConverseInput{
		ModelId: aws.String(conv.Model), System: converseSystem(conv.System), Messages: converseMessages(conv),
		InferenceConfig: ic, AdditionalModelRequestFields: extra,
	})
	if err != nil {
		return result{}, err
	}
	a := converseOutput(out)
	return a.result(), nil
}

// stream sends conv with ConverseStream and reads its events as they
// come.
func (converseClient) stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error) {
	ic, extra := converseConfig(conv)
	out, err := newBedrockRuntime(base, o.httpClient()).ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId: aws.String(conv.Model), System: converseSystem(conv.System), Messages: converseMessages(conv),
		InferenceConfig: ic, AdditionalModelRequestFields: extra,
	})
	if err != nil {
		return streamResult{}, err
	}
	var a converseAnswerOf
	err = a.read(out, o.text)
	res := streamResult{result: a.result(), Deltas: a.deltas, Terminal: a.terminal}
	return res, err
}

// converseAnswerOf is what a Converse client made of an answer: its
// content blocks (a stream's accumulated as the SDK's users do), stop
// reason and usage.
type converseAnswerOf struct {
	blocks []types.ContentBlock
	stop   types.StopReason
	usage  *types.TokenUsage
	// deltas counts the non-empty text deltas; fragments the non-empty
	// input fragments per call (by call order); problems are ways the
	// stream broke "id and name once, then only non-empty fragments".
	deltas    int
	fragments map[int]int
	problems  []string
	// terminal reports the stream's end: its metadata after messageStop.
	terminal bool
	stopped  bool
}

// converseOutput reads a Converse response.
func converseOutput(out *bedrockruntime.ConverseOutput) converseAnswerOf {
	a := converseAnswerOf{stop: out.StopReason, usage: out.Usage, terminal: true, stopped: true}
	if m, ok := out.Output.(*types.ConverseOutputMemberMessage); ok {
		a.blocks = m.Value.Content
	}
	return a
}

// read accumulates a ConverseStream's events into blocks, calling onText
// with every non-empty text delta, and returns the stream's error.
func (a *converseAnswerOf) read(out *bedrockruntime.ConverseStreamOutput, onText func(string)) error {
	st := out.GetStream()
	defer st.Close()
	a.fragments = map[int]int{}
	type building struct {
		text, reasoning, signature, input strings.Builder
		redacted                          []byte
		toolID, toolName                  string
		kind                              string
	}
	var blocks []*building
	at := func(i *int32) *building {
		n := int(aws.ToInt32(i))
		for len(blocks) <= n {
			blocks = append(blocks, &building{})
		}
		return blocks[n]
	}
	calls := map[int32]int{}
	for ev := range st.Events() {
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				b := at(e.Value.ContentBlockIndex)
				if b.kind != "" {
					a.problems = append(a.problems, fmt.Sprintf("block %d started twice", aws.ToInt32(e.Value.ContentBlockIndex)))
				}
				b.kind, b.toolID, b.toolName = "toolUse", aws.ToString(tu.Value.ToolUseId), aws.ToString(tu.Value.Name)
				calls[aws.ToInt32(e.Value.ContentBlockIndex)] = len(calls)
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			b := at(e.Value.ContentBlockIndex)
			switch d := e.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				if b.kind == "" {
					b.kind = "text"
				}
				b.text.WriteString(d.Value)
				if d.Value != "" {
					a.deltas++
					if onText != nil {
						onText(d.Value)
					}
				}
			case *types.ContentBlockDeltaMemberToolUse:
				i, ok := calls[aws.ToInt32(e.Value.ContentBlockIndex)]
				switch {
				case !ok:
					a.problems = append(a.problems, fmt.Sprintf("tool input for block %d, which no toolUse start opened", aws.ToInt32(e.Value.ContentBlockIndex)))
				case aws.ToString(d.Value.Input) == "":
					a.problems = append(a.problems, fmt.Sprintf("empty toolUse input delta for call %d", i))
				default:
					a.fragments[i]++
				}
				b.input.WriteString(aws.ToString(d.Value.Input))
			case *types.ContentBlockDeltaMemberReasoningContent:
				b.kind = "reasoning"
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					b.reasoning.WriteString(r.Value)
				case *types.ReasoningContentBlockDeltaMemberSignature:
					b.signature.WriteString(r.Value)
				case *types.ReasoningContentBlockDeltaMemberRedactedContent:
					b.redacted = append(b.redacted, r.Value...)
				}
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			a.stop, a.stopped = e.Value.StopReason, true
		case *types.ConverseStreamOutputMemberMetadata:
			a.usage = e.Value.Usage
			a.terminal = a.stopped
		}
	}
	for _, b := range blocks {
		switch b.kind {
		case "text":
			a.blocks = append(a.blocks, &types.ContentBlockMemberText{Value: b.text.String()})
		case "toolUse":
			input := b.input.String()
			if input == "" {
				input = "{}"
			}
			var v any
			if err := json.Unmarshal([]byte(input), &v); err != nil {
				a.problems = append(a.problems, fmt.Sprintf("call %s input %q is not JSON", b.toolName, input))
			}
			a.blocks = append(a.blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: aws.String(b.toolID), Name: aws.String(b.toolName), Input: document.NewLazyDocument(v)}})
		case "reasoning":
			var rc types.ReasoningContentBlock
			if b.redacted != nil {
				rc = &types.ReasoningContentBlockMemberRedactedContent{Value: b.redacted}
			} else {
				rt := types.ReasoningTextBlock{Text: aws.String(b.reasoning.String())}
				if b.signature.Len() > 0 {
					rt.Signature = aws.String(b.signature.String())
				}
				rc = &types.ReasoningContentBlockMemberReasoningText{Value: rt}
			}
			a.blocks = append(a.blocks, &types.ContentBlockMemberReasoningContent{Value: rc})
		}
	}
	return st.Err()
}

// text is the answer's text.
func (a *converseAnswerOf) text() string {
	var b strings.Builder
	for _, bl := range a.blocks {
		if t, ok := bl.(*types.ContentBlockMemberText); ok {
			b.WriteString(t.Value)
		}
	}
	return b.String()
}

// result normalises the answer; input tokens include the cache reads and
// writes Converse reports apart.
func (a *converseAnswerOf) result() result {
	res := result{Text: a.text()}
	if a.stopped {
		res.Stop = normaliseStop(bedrockConverse, string(a.stop))
	}
	if u := a.usage; u != nil {
		res.InputTokens = int64(aws.ToInt32(u.InputTokens) + aws.ToInt32(u.CacheReadInputTokens) + aws.ToInt32(u.CacheWriteInputTokens))
		res.OutputTokens = int64(aws.ToInt32(u.OutputTokens))
	}
	return res
}

// calls are the answer's tool calls, their input as JSON text.
func (a *converseAnswerOf) calls() []toolCall {
	var out []toolCall
	for _, bl := range a.blocks {
		if tu, ok := bl.(*types.ContentBlockMemberToolUse); ok {
			args, err := tu.Value.Input.MarshalSmithyDocument()
			if err != nil {
				args = []byte(fmt.Sprintf("unmarshalable input: %v", err))
			}
			out = append(out, toolCall{ID: aws.ToString(tu.Value.ToolUseId), Name: aws.ToString(tu.Value.Name), Args: string(args)})
		}
	}
	return out
}

// reasoning is the reasoning text the answer shows.
func (a *converseAnswerOf) reasoning() string {
	var b strings.Builder
	for _, bl := range a.blocks {
		if rc, ok := bl.(*types.ContentBlockMemberReasoningContent); ok {
			if rt, ok := rc.Value.(*types.ReasoningContentBlockMemberReasoningText); ok {
				b.WriteString(aws.ToString(rt.Value.Text))
			}
		}
	}
	return b.String()
}

// usageMap is the answer's usage by Converse's own member names, the
// members it reported only.
func (a *converseAnswerOf) usageMap() map[string]int64 {
	u := a.usage
	if u == nil {
		return nil
	}
	m := map[string]int64{}
	for name, v := range map[string]*int32{"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens, "totalTokens": u.TotalTokens,
		"cacheReadInputTokens": u.CacheReadInputTokens, "cacheWriteInputTokens": u.CacheWriteInputTokens} {
		if v != nil {
			m[name] = int64(*v)
		}
	}
	return m
}

// converseErrorStatus returns the HTTP status of an AWS SDK error that
// came with an HTTP response.
func converseErrorStatus(err error) (int, bool) {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode(), true
	}
	return 0, false
}

// converseErrorMessage returns the message of an AWS SDK error: the
// exception's message.
func converseErrorMessage(err error) (string, bool) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage(), true
	}
	return "", false
}

// converseErrorHeader returns the response headers of an AWS SDK error.
func converseErrorHeader(err error) (http.Header, bool) {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil && re.Response.Response != nil {
		return re.Response.Header, true
	}
	return nil, false
}

// isConverseStreamException reports whether err is an exception the AWS
// SDK read inside an event stream: an API error without an HTTP
// response of its own.
func isConverseStreamException(err error) bool {
	var ae smithy.APIError
	var re *smithyhttp.ResponseError
	return errors.As(err, &ae) && !errors.As(err, &re)
}

// Interface guards: the Converse client serves every suite.
var (
	_ streamingClient = converseClient{}
	_ toolClient      = converseClient{}
	_ replayClient    = converseClient{}
	_ probeClient     = converseClient{}
)
