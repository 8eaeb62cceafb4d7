package caddytest

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/tidwall/gjson"
)

// headerRecorder is an HTTP transport that keeps the last response's
// headers, which the AWS SDK's InvokeModel output does not expose.
type headerRecorder struct {
	next http.RoundTripper
	last http.Header
}

// RoundTrip implements http.RoundTripper.
func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if err == nil {
		h.last = resp.Header.Clone()
	}
	return resp, err
}

// TestBedrockInvocationMetrics has the AWS SDK read, through every upstream
// llmbridge translates for it, what Bedrock's clients read for usage and
// latency: the amazon-bedrock-invocationMetrics of an
// InvokeModelWithResponseStream's last chunk, the X-Amzn-Bedrock-* headers
// of an InvokeModel answer, and the metrics of a Converse answer and of a
// ConverseStream's metadata event.
// The token counts agree with the answer's own usage (Anthropic's meaning:
// input without cached tokens) and the latencies are measured, so never 0.
func TestBedrockInvocationMetrics(t *testing.T) {
	env := setup(t)
	wantIn, wantOut := int64(defaultUsage.Input-defaultUsage.CacheRead), int64(defaultUsage.Output)
	for _, up := range allProtocols {
		if up != bedrockAnthropic {
			t.Run(string(up)+"/InvokeModelWithResponseStream", func(t *testing.T) {
				env.mocks.resetAll(t)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				out, err := newBedrockRuntime(env.plain[up], streamOptions{}.httpClient()).InvokeModelWithResponseStream(ctx,
					&bedrockruntime.InvokeModelWithResponseStreamInput{ModelId: aws.String(bedrockAnthropic.defaultModel()),
						Body: []byte(invokeBody), ContentType: aws.String("application/json")})
				if err != nil {
					t.Fatal(describeStreamErr(err))
				}
				st := out.GetStream()
				defer st.Close()
				var metrics, usage gjson.Result
				for ev := range st.Events() {
					chunk, ok := ev.(*types.ResponseStreamMemberChunk)
					if !ok {
						continue
					}
					e := gjson.ParseBytes(chunk.Value.Bytes)
					switch e.Get("type").Str {
					case "message_delta":
						usage = e.Get("usage")
					case "message_stop":
						metrics = e.Get("amazon-bedrock-invocationMetrics")
					}
				}
				if err := st.Err(); err != nil {
					t.Fatal(err)
				}
				if !metrics.Exists() {
					t.Fatal("message_stop has no amazon-bedrock-invocationMetrics")
				}
				in, outTok := metrics.Get("inputTokenCount").Int(), metrics.Get("outputTokenCount").Int()
				invocation, firstByte := metrics.Get("invocationLatency").Int(), metrics.Get("firstByteLatency").Int()
				if in != wantIn || outTok != wantOut || in != usage.Get("input_tokens").Int() || outTok != usage.Get("output_tokens").Int() {
					t.Errorf("metrics %s, usage %s; want %d input and %d output tokens in both", metrics.Raw, usage.Raw, wantIn, wantOut)
				}
				if firstByte < 1 || invocation < firstByte {
					t.Errorf("latencies %s: want 1 <= firstByteLatency <= invocationLatency", metrics.Raw)
				}
			})
			t.Run(string(up)+"/InvokeModel", func(t *testing.T) {
				env.mocks.resetAll(t)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				rec := &headerRecorder{next: sdkTransport}
				out, err := newBedrockRuntime(env.plain[up], &http.Client{Transport: rec}).InvokeModel(ctx,
					&bedrockruntime.InvokeModelInput{ModelId: aws.String(bedrockAnthropic.defaultModel()),
						Body: []byte(invokeBody), ContentType: aws.String("application/json"), Accept: aws.String("application/json")})
				if err != nil {
					t.Fatal(describeStreamErr(err))
				}
				u := gjson.GetBytes(out.Body, "usage")
				in, _ := strconv.ParseInt(rec.last.Get("X-Amzn-Bedrock-Input-Token-Count"), 10, 64)
				outTok, _ := strconv.ParseInt(rec.last.Get("X-Amzn-Bedrock-Output-Token-Count"), 10, 64)
				latency, _ := strconv.ParseInt(rec.last.Get("X-Amzn-Bedrock-Invocation-Latency"), 10, 64)
				if in != wantIn || outTok != wantOut || in != u.Get("input_tokens").Int() || outTok != u.Get("output_tokens").Int() || latency < 1 {
					t.Errorf("headers %v, usage %s; want %d input and %d output tokens and a latency", rec.last, u.Raw, wantIn, wantOut)
				}
			})
		}
		if up != bedrockConverse {
			t.Run(string(up)+"/Converse", func(t *testing.T) {
				env.mocks.resetAll(t)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				out, err := newBedrockRuntime(env.plain[up], streamOptions{}.httpClient()).Converse(ctx, bedrockSDKConverseInput())
				if err != nil {
					t.Fatal(describeStreamErr(err))
				}
				if out.Metrics == nil || out.Metrics.LatencyMs == nil || *out.Metrics.LatencyMs < 1 || out.Usage == nil || int64(aws.ToInt32(out.Usage.OutputTokens)) != wantOut {
					t.Errorf("metrics %+v, usage %+v; want a latency and %d output tokens", out.Metrics, out.Usage, wantOut)
				}
			})
			t.Run(string(up)+"/ConverseStream", func(t *testing.T) {
				env.mocks.resetAll(t)
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				in := bedrockSDKConverseInput()
				out, err := newBedrockRuntime(env.plain[up], streamOptions{}.httpClient()).ConverseStream(ctx,
					&bedrockruntime.ConverseStreamInput{ModelId: in.ModelId, Messages: in.Messages, InferenceConfig: in.InferenceConfig})
				if err != nil {
					t.Fatal(describeStreamErr(err))
				}
				st := out.GetStream()
				defer st.Close()
				var meta *types.ConverseStreamMetadataEvent
				for ev := range st.Events() {
					if m, ok := ev.(*types.ConverseStreamOutputMemberMetadata); ok {
						meta = &m.Value
					}
				}
				if err := st.Err(); err != nil {
					t.Fatal(err)
				}
				switch {
				case meta == nil || meta.Usage == nil || meta.Metrics == nil || meta.Metrics.LatencyMs == nil:
					t.Fatalf("metadata %+v lacks usage or metrics", meta)
				case int64(aws.ToInt32(meta.Usage.OutputTokens)) != wantOut || *meta.Metrics.LatencyMs < 1:
					t.Errorf("metadata usage %+v, latency %d ms; want %d output tokens and a latency", *meta.Usage, *meta.Metrics.LatencyMs, wantOut)
				}
			})
		}
	}
}
