package caddytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/tidwall/gjson"
)

// The AWS SDK for Go's own Bedrock Runtime calls through llmbridge: the
// Converse API (bedrock) and InvokeModel with Anthropic's Messages body
// (bedrock-anthropic), streamed and not, toward every upstream.

// bedrockSDKCall is one Bedrock Runtime operation of the AWS SDK, returning
// what the client made of the answer: Stop normalised, usage in the
// suite's inclusive meaning, Terminal when the answer's end arrived.
type bedrockSDKCall struct {
	name string
	call func(ctx context.Context, c *bedrockruntime.Client) (streamResult, error)
}

// invokeBody is the Anthropic Messages body of the InvokeModel calls.
const invokeBody = `{"anthropic_version":"` + bedrockAnthropicVersion + `","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`

// bedrockSDKCalls are Converse, ConverseStream, InvokeModel and
// InvokeModelWithResponseStream, each asking for one short answer.
var bedrockSDKCalls = []bedrockSDKCall{
	{"Converse", func(ctx context.Context, c *bedrockruntime.Client) (streamResult, error) {
		out, err := c.Converse(ctx, bedrockSDKConverseInput())
		if err != nil {
			return streamResult{}, err
		}
		a := converseOutput(out)
		return streamResult{result: a.result(), Terminal: true}, nil
	}},
	{"ConverseStream", func(ctx context.Context, c *bedrockruntime.Client) (streamResult, error) {
		in := bedrockSDKConverseInput()
		out, err := c.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: in.ModelId, Messages: in.Messages, InferenceConfig: in.InferenceConfig})
		if err != nil {
			return streamResult{}, err
		}
		var a converseAnswerOf
		err = a.read(out, nil)
		return streamResult{result: a.result(), Deltas: a.deltas, Terminal: a.terminal}, err
	}},
	{"InvokeModel", func(ctx context.Context, c *bedrockruntime.Client) (streamResult, error) {
		out, err := c.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{ModelId: aws.String(bedrockAnthropic.defaultModel()),
			Body: []byte(invokeBody), ContentType: aws.String("application/json"), Accept: aws.String("application/json")})
		if err != nil {
			return streamResult{}, err
		}
		var res streamResult
		for _, b := range gjson.GetBytes(out.Body, "content").Array() {
			if b.Get("type").Str == "text" {
				res.Text += b.Get("text").Str
			}
		}
		res.Stop = normaliseStop(bedrockAnthropic, gjson.GetBytes(out.Body, "stop_reason").Str)
		u := gjson.GetBytes(out.Body, "usage")
		res.InputTokens = u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int()
		res.OutputTokens, res.Terminal = u.Get("output_tokens").Int(), true
		return res, nil
	}},
	{"InvokeModelWithResponseStream", func(ctx context.Context, c *bedrockruntime.Client) (streamResult, error) {
		out, err := c.InvokeModelWithResponseStream(ctx, &bedrockruntime.InvokeModelWithResponseStreamInput{
			ModelId: aws.String(bedrockAnthropic.defaultModel()), Body: []byte(invokeBody), ContentType: aws.String("application/json")})
		if err != nil {
			return streamResult{}, err
		}
		return readInvokeStream(out)
	}},
}

// bedrockSDKConverseInput is the Converse request of the Converse calls.
func bedrockSDKConverseInput() *bedrockruntime.ConverseInput {
	return &bedrockruntime.ConverseInput{ModelId: aws.String(bedrockConverse.defaultModel()),
		Messages:        []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Hi"}}}},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(64)}}
}

// readInvokeStream reads InvokeModelWithResponseStream's chunks, each the
// bytes of one Anthropic event, as Anthropic's Bedrock clients do: the
// text deltas, the stop reason, usage (message_delta's input counts, when
// it has them, replace message_start's, as the SDKs accumulate them) and
// message_stop as the end.
func readInvokeStream(out *bedrockruntime.InvokeModelWithResponseStreamOutput) (streamResult, error) {
	st := out.GetStream()
	defer st.Close()
	var res streamResult
	var problems []string
	for ev := range st.Events() {
		chunk, ok := ev.(*types.ResponseStreamMemberChunk)
		if !ok {
			problems = append(problems, fmt.Sprintf("an event %T that is not a chunk", ev))
			continue
		}
		e := gjson.ParseBytes(chunk.Value.Bytes)
		if !gjson.ValidBytes(chunk.Value.Bytes) || res.Terminal {
			problems = append(problems, fmt.Sprintf("chunk %q (after the end: %v)", chunk.Value.Bytes, res.Terminal))
			continue
		}
		inputTokens := func(u gjson.Result) {
			if u.Get("input_tokens").Exists() {
				res.InputTokens = u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int()
			}
		}
		switch e.Get("type").Str {
		case "message_start":
			inputTokens(e.Get("message.usage"))
		case "content_block_delta":
			if t := e.Get("delta.text").Str; t != "" {
				res.Text += t
				res.Deltas++
			}
		case "message_delta":
			res.Stop = normaliseStop(bedrockAnthropic, e.Get("delta.stop_reason").Str)
			res.OutputTokens = e.Get("usage.output_tokens").Int()
			inputTokens(e.Get("usage"))
		case "message_stop":
			res.Terminal = true
		}
	}
	if err := st.Err(); err != nil {
		return res, err
	}
	if len(problems) > 0 {
		return res, errors.New("the stream's chunks: " + strings.Join(problems, "; "))
	}
	return res, nil
}

// TestBedrockSDKs has the AWS SDK's Converse, ConverseStream, InvokeModel
// and InvokeModelWithResponseStream call llmbridge with a Bedrock API key
// toward every upstream: each gets the upstream's text, a natural end and
// the default answer's usage (15 input tokens with the cached ones, 10
// output), and the upstream one request. On a site with client_keys a
// wrong key is the SDK's UnrecognizedClientException (401) before any
// upstream call.
func TestBedrockSDKs(t *testing.T) {
	env := setup(t)
	for _, up := range allProtocols {
		for _, sc := range bedrockSDKCalls {
			t.Run(string(up)+"/"+sc.name, func(t *testing.T) {
				env.mocks.resetAll(t)
				name := sc.name + " through " + string(up)
				want := env.mocks[up].reply
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				res, err := sc.call(ctx, newBedrockRuntime(env.plain[up], streamOptions{}.httpClient()))
				if err != nil {
					t.Fatalf("%s: %s", name, describeStreamErr(err))
				}
				if _, hits := env.mocks[up].lastRequest(); hits != 1 {
					t.Errorf("%s: the upstream received %d requests, want 1", name, hits)
				}
				u := defaultUsage
				if res.Text != want.Text || res.Stop != "end" || !res.Terminal || res.InputTokens != u.Input || res.OutputTokens != u.Output {
					t.Errorf("%s: the client got %q (stop %q, end seen %v, usage %d in %d out); want %q, end, %d in %d out",
						name, res.Text, res.Stop, res.Terminal, res.InputTokens, res.OutputTokens, want.Text, u.Input, u.Output)
				}
			})
			t.Run(string(up)+"/"+sc.name+"/wrong-key", func(t *testing.T) {
				env.mocks.resetAll(t)
				name := sc.name + " with a wrong key through " + string(up)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				_, err := sc.call(ctx, newBedrockRuntimeKey(env.gated[up], streamOptions{}.httpClient(), "wrong-key"))
				status, _ := sdkErrorStatus(err)
				var ae smithy.APIError
				if err == nil || status != http.StatusUnauthorized || !errors.As(err, &ae) || ae.ErrorCode() != "UnrecognizedClientException" {
					t.Errorf("%s: the client got %v; want HTTP 401 UnrecognizedClientException", name, err)
				}
				env.mocks.assertNoUpstreamCall(t, name)
			})
		}
	}
}
