package caddytest

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
)

// countingTransport counts the 429 answers its client received.
type countingTransport struct {
	base     http.RoundTripper
	refusals atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.refusals.Add(1)
	}
	return resp, err
}

// TestLimitSDKBackOff sends two requests within one second through a
// site whose key may make one request a second, with each client
// protocol's official SDK at its default retry settings: the second is
// refused with a 429 and Retry-After, and the SDK waits and retries it
// into the next second, where it succeeds. genai retries only when asked
// (HTTPOptions.RetryOptions, its defaults: a first delay of a second),
// and waits its own delay rather than Retry-After's.
func TestLimitSDKBackOff(t *testing.T) {
	env := setup(t)
	base := newOneSite(t, env).load(t, "", fmt.Sprintf(`	llmbridge {
		upstream openai-chat
		api_key %s
		client_keys {
			alice %s
		}
		limit alice {
			requests 1/second
			scope sdk-backoff-%d
		}
	}
	reverse_proxy %s
`, upstreamKey, clientKey, time.Now().UnixNano(), env.mocks[openaiChat].addr()))
	calls := map[string]func(ctx context.Context, hc *http.Client) error{
		"openai-chat": func(ctx context.Context, hc *http.Client) error {
			c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithHTTPClient(hc))
			_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-5.2", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}})
			return err
		},
		"openai-responses": func(ctx context.Context, hc *http.Client) error {
			c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithHTTPClient(hc))
			_, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5.2", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hi")}})
			return err
		},
		"anthropic-messages": func(ctx context.Context, hc *http.Client) error {
			c := anthropic.NewClient(anthropicopt.WithBaseURL(base), anthropicopt.WithAPIKey(clientKey), anthropicopt.WithHTTPClient(hc))
			_, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "gpt-5.2", MaxTokens: 16,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))}})
			return err
		},
		"gemini": func(ctx context.Context, hc *http.Client) error {
			c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: clientKey, Backend: genai.BackendGeminiAPI, HTTPClient: hc,
				HTTPOptions: genai.HTTPOptions{BaseURL: base, RetryOptions: &genai.HTTPRetryOptions{}}})
			if err != nil {
				return err
			}
			_, err = c.Models.GenerateContent(ctx, "gpt-5.2", genai.Text("Hi"), nil)
			return err
		},
	}
	for _, name := range []string{"openai-chat", "openai-responses", "anthropic-messages", "gemini"} {
		t.Run(name, func(t *testing.T) {
			env.mocks.resetAll(t)
			tr := &countingTransport{base: sdkTransport}
			hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			// Both requests in one second: start just after a second
			// begins.
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := calls[name](ctx, hc); err != nil {
				t.Fatalf("first request: %v", err)
			}
			start := time.Now()
			if err := calls[name](ctx, hc); err != nil {
				t.Fatalf("second request, refused then retried by the SDK: %v", err)
			}
			if tr.refusals.Load() == 0 {
				t.Errorf("the second request was not refused: the limit did not count")
			}
			if d := time.Since(start); d < 500*time.Millisecond {
				t.Errorf("the SDK retried after %v, before the window reset", d)
			}
		})
	}
}
