package caddytest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	anthropicvertex "github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/genai"

	"github.com/llmbridge/llmbridge/codec"
)

// listingClient is an SDK that lists models; shape names its listing
// shape ("openai", "anthropic" or "gemini").
type listingClient struct {
	shape string
	list  func(ctx context.Context, base string) ([]string, error)
}

// listingClients are the official SDKs' model listings: openai-go's
// (the OpenAI shape, for both OpenAI protocols), anthropic-sdk-go's and
// genai's for the Gemini API. Vertex has no listing of its own.
var listingClients = []listingClient{
	{"openai", func(ctx context.Context, base string) ([]string, error) {
		c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
		page, err := c.Models.List(ctx)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, m := range page.Data {
			if m.Object != "model" || m.OwnedBy == "" {
				return nil, fmt.Errorf("model %+v lacks object or owned_by", m)
			}
			ids = append(ids, m.ID)
		}
		return ids, nil
	}},
	{"anthropic", func(ctx context.Context, base string) ([]string, error) {
		c := anthropic.NewClient(anthropicopt.WithBaseURL(base), anthropicopt.WithAPIKey(clientKey), anthropicopt.WithMaxRetries(0), anthropicopt.WithHTTPClient(sdkHTTPClient))
		page, err := c.Models.List(ctx, anthropic.ModelListParams{})
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, m := range page.Data {
			if m.Type != "model" || m.DisplayName == "" || m.CreatedAt.IsZero() && !m.JSON.CreatedAt.Valid() {
				return nil, fmt.Errorf("model %+v lacks type, display_name or created_at", m)
			}
			ids = append(ids, m.ID)
		}
		return ids, nil
	}},
	{"gemini", func(ctx context.Context, base string) ([]string, error) {
		c, err := genaiClient{backend: genai.BackendGeminiAPI}.newClient(ctx, base, clientProject, sdkTransport)
		if err != nil {
			return nil, err
		}
		page, err := c.Models.List(ctx, &genai.ListModelsConfig{})
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, m := range page.Items {
			if !strings.HasPrefix(m.Name, "models/") || len(m.SupportedActions) == 0 {
				return nil, fmt.Errorf("model %+v lacks models/ or supportedGenerationMethods", m)
			}
			ids = append(ids, strings.TrimPrefix(m.Name, "models/"))
		}
		return ids, nil
	}},
}

// TestModelListing lists models with every SDK through every upstream: the
// upstream's own listing comes back in the client's shape with the
// upstream's ids, and a Vertex upstream (no listing) is a 400 in the
// client's format, without an upstream call.
func TestModelListing(t *testing.T) {
	env := setup(t)
	for _, lc := range listingClients {
		for _, up := range allProtocols {
			t.Run(lc.shape+"->"+string(up), func(t *testing.T) {
				env.mocks.resetAll(t)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				ids, err := lc.list(ctx, env.plain[up])
				want, listed := mockModels[up]
				if !listed {
					status, _ := sdkErrorStatus(err)
					if err == nil || status != http.StatusBadRequest || !strings.Contains(sdkErrorMessage(err), "model listing is not supported by this gateway: its upstream protocol "+string(up)) {
						t.Fatalf("got %v, %v; want a 400 saying listing is not supported", ids, err)
					}
					env.mocks.assertNoUpstreamCall(t, "listing through "+string(up))
					return
				}
				if err != nil {
					t.Fatalf("listing: %s", describeErr(err))
				}
				if !slices.Equal(ids, want) {
					t.Errorf("ids %v, want the upstream's %v", ids, want)
				}
				rec, n := env.mocks[up].lastRequest()
				if n != 1 || rec.Method != http.MethodGet {
					t.Fatalf("upstream got %d requests, last %+v", n, rec)
				}
				if got := credential(up, rec); got != clientKey {
					t.Errorf("upstream credential %q, want the client's key moved into %s's scheme", got, up)
				}
			})
		}
	}
}

// countClient is an SDK that counts tokens in client protocol p.
type countClient struct {
	p     proto
	count func(ctx context.Context, base string) (int64, error)
}

// countClients are the official SDKs' token counting calls, for every
// client protocol that has one, each counting the same small conversation.
var countClients = []countClient{
	{anthropicMsgs, func(ctx context.Context, base string) (int64, error) {
		return anthropicCount(ctx, anthropicClient{}, base)
	}},
	{vertexAnthropic, func(ctx context.Context, base string) (int64, error) {
		return anthropicCount(ctx, anthropicClient{vertex: true}, base)
	}},
	{gemini, func(ctx context.Context, base string) (int64, error) {
		return genaiCount(ctx, genaiClient{backend: genai.BackendGeminiAPI}, base)
	}},
	{vertex, func(ctx context.Context, base string) (int64, error) {
		return genaiCount(ctx, genaiClient{backend: genai.BackendVertexAI}, base)
	}},
	{openaiResponses, func(ctx context.Context, base string) (int64, error) {
		c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
		res, err := c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{
			Model:        openai.String(openaiResponses.defaultModel()),
			Instructions: openai.String("Be brief."),
			Input:        responses.InputTokenCountParamsInputUnion{OfString: openai.String("Hi")},
		})
		if err != nil {
			return 0, err
		}
		if res.Object != "response.input_tokens" {
			return 0, fmt.Errorf("object %q", res.Object)
		}
		return res.InputTokens, nil
	}},
}

func anthropicCount(ctx context.Context, a anthropicClient, base string) (int64, error) {
	opts := []anthropicopt.RequestOption{anthropicopt.WithHTTPClient(sdkHTTPClient), anthropicopt.WithMaxRetries(0)}
	if a.vertex {
		creds := &google.Credentials{
			ProjectID:   clientProject,
			TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: clientKey, TokenType: "Bearer"}),
		}
		opts = append(opts, anthropicvertex.WithCredentials(ctx, vertexLocation, clientProject, creds),
			anthropicopt.WithBaseURL(base+"/"), anthropicopt.WithHeader("anthropic-version", vertexAnthropicVersion))
	} else {
		opts = append(opts, anthropicopt.WithBaseURL(base), anthropicopt.WithAPIKey(clientKey))
	}
	c := anthropic.NewClient(opts...)
	res, err := c.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{
		Model:    anthropic.Model(a.protocol().defaultModel()),
		System:   anthropic.MessageCountTokensParamsSystemUnion{OfString: anthropic.String("Be brief.")},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
	})
	if err != nil {
		return 0, err
	}
	return res.InputTokens, nil
}

func genaiCount(ctx context.Context, g genaiClient, base string) (int64, error) {
	c, err := g.newClient(ctx, base, clientProject, sdkTransport)
	if err != nil {
		return 0, err
	}
	res, err := c.Models.CountTokens(ctx, g.protocol().defaultModel(), genai.Text("Hi"), nil)
	if err != nil {
		return 0, err
	}
	return int64(res.TotalTokens), nil
}

// TestTokenCounting counts tokens with every SDK that can, through every
// upstream: the count the upstream reported comes back in the client's
// shape, the upstream receiving a valid count request of its protocol
// (the mocks check it), with the model the client named. An upstream
// whose protocol has no counting (openai-chat, bedrock's Converse) cannot
// count: the client gets a 400 in its format and the upstream no call.
func TestTokenCounting(t *testing.T) {
	env := setup(t)
	for _, cc := range countClients {
		for _, up := range allProtocols {
			t.Run(string(cc.p)+"->"+string(up), func(t *testing.T) {
				env.mocks.resetAll(t)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				n, err := cc.count(ctx, env.plain[up])
				if !codec.HasTokenCount(codec.Protocol(up)) {
					status, _ := sdkErrorStatus(err)
					want := "token counting is not supported by this gateway: its upstream protocol " + string(up) + " has no token counting endpoint"
					if err == nil || status != http.StatusBadRequest || !strings.Contains(sdkErrorMessage(err), want) {
						t.Fatalf("got %d, %v; want a 400 saying counting is not supported", n, err)
					}
					env.mocks.assertNoUpstreamCall(t, "counting through "+string(up))
					return
				}
				if err != nil {
					t.Fatalf("counting: %s", describeErr(err))
				}
				if n != mockCount {
					t.Errorf("count %d, want the upstream's %d", n, mockCount)
				}
				rec, hits := env.mocks[up].lastRequest()
				if hits != 1 {
					t.Fatalf("upstream got %d requests", hits)
				}
				if kind, _ := up.endpointOf(rec.Path); kind != "count" {
					t.Errorf("upstream path %s is not its count endpoint", rec.Path)
				}
				if got, want := countModel(up, rec), cc.p.defaultModel(); got != want {
					t.Errorf("upstream counted for model %q, want %q", got, want)
				}
			})
		}
	}
}

// countModel returns the model a count request of p names: in the path
// (Gemini, Vertex) or in the body.
func countModel(p proto, rec *recordedRequest) string {
	if _, m := p.endpointOf(rec.Path); m != "" {
		return m
	}
	return gjson.GetBytes(rec.Body, "model").Str
}

// TestEndpointsGatedAndRouted checks that listing and counting follow the
// site's client_keys (401 without a key, and the upstream gets api_key,
// never the client's) and its model rules (a count for alias-<model>
// reaches the upstream for <model>).
func TestEndpointsGatedAndRouted(t *testing.T) {
	env := setup(t)
	do := func(method, url string, header map[string]string, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := sdkHTTPClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	anthropicHeaders := func(key string) map[string]string {
		h := map[string]string{"Anthropic-Version": "2023-06-01", "Content-Type": "application/json"}
		if key != "" {
			h["X-Api-Key"] = key
		}
		return h
	}
	const countBody = `{"model":"alias-gemini-2.5-flash","messages":[{"role":"user","content":"Hi"}]}`
	for _, tc := range []struct {
		name, method, path, body string
	}{
		{"listing", "GET", "/v1/models", ""},
		{"counting", "POST", "/v1/messages/count_tokens", countBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			status, body := do(tc.method, env.gated[gemini]+tc.path, anthropicHeaders(""), tc.body)
			if status != http.StatusUnauthorized || gjson.Get(body, "error.type").Str != "authentication_error" {
				t.Errorf("without a key: %d %s", status, body)
			}
			env.mocks.assertNoUpstreamCall(t, "without a key")
			status, body = do(tc.method, env.gated[gemini]+tc.path, anthropicHeaders(gateKey), tc.body)
			if status != http.StatusOK {
				t.Fatalf("with a key: %d %s", status, body)
			}
			rec, _ := env.mocks[gemini].lastRequest()
			if got := credential(gemini, rec); got != upstreamKey {
				t.Errorf("upstream credential %q, want api_key", got)
			}
		})
	}
	t.Run("routed count", func(t *testing.T) {
		env.mocks.resetAll(t)
		status, body := do("POST", env.routed[gemini]+"/v1/messages/count_tokens", anthropicHeaders(clientKey), countBody)
		if status != http.StatusOK || gjson.Get(body, "input_tokens").Int() != mockCount {
			t.Fatalf("%d %s", status, body)
		}
		rec, _ := env.mocks[gemini].lastRequest()
		if got := countModel(gemini, rec); got != "gemini-2.5-flash" {
			t.Errorf("upstream counted for %q, want the routed gemini-2.5-flash", got)
		}
	})
}
