package caddytest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	openaiopt "github.com/openai/openai-go/v3/option"
)

// Azure OpenAI settings written into the Caddyfile and expected by the
// Azure fronts and the Entra ID token endpoint.
const (
	azureAPIVersion   = "2024-10-21"
	azureTenant       = "azure-tenant"
	azureClientID     = "azure-client"
	azureClientSecret = "azure-secret"
	azureToken        = "entra-token"
)

// azureMode is how an Azure site reaches its upstream.
type azureMode string

const (
	// azureV1 uses the versionless v1 paths and the api-key header.
	azureV1 azureMode = "v1"
	// azureVersioned uses a deployment's path with azure_api_version.
	azureVersioned azureMode = "versioned"
	// azureEntra uses the v1 paths with an Entra ID token.
	azureEntra azureMode = "entra"
)

// azureSeen is what an Azure front received.
type azureSeen struct {
	path, query, apiKey, authorization string
}

// azureFront is an Azure OpenAI endpoint in front of the OpenAI mocks: it
// checks what only Azure has (its paths, the api-version, api-key or an
// Entra ID token) and passes the request on, rewritten as OpenAI takes it,
// to the mock of its wire format, which checks the body and answers.
type azureFront struct {
	srv  *httptest.Server
	mode azureMode
	// chat and resp are the base URLs of the OpenAI mocks behind it.
	chat, resp string

	// tokens are the Entra ID tokens an entra front accepts (default:
	// azureToken); refuse answers a request carrying one of them with
	// that status instead (credential pools).
	tokens []string
	refuse map[string]int
	// streamLimit is a token whose requests are answered a stream that
	// fails with a rate limit before any content.
	streamLimit string

	mu         sync.Mutex
	seen       []azureSeen
	violations []string
}

func newAzureFront(mode azureMode, chat, resp string) *azureFront {
	f := &azureFront{mode: mode, chat: chat, resp: resp}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	return f
}

func (f *azureFront) addr() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *azureFront) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s := azureSeen{path: r.URL.Path, query: r.URL.RawQuery, apiKey: r.Header.Get("Api-Key"), authorization: r.Header.Get("Authorization")}
	var problems []string
	var target, openaiPath string
	versioned := f.mode == azureVersioned
	switch {
	case !versioned && r.URL.Path == "/openai/v1/chat/completions",
		versioned && strings.HasPrefix(r.URL.Path, "/openai/deployments/") && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		target, openaiPath = f.chat, "/v1/chat/completions"
	case !versioned && r.URL.Path == "/openai/v1/responses", versioned && r.URL.Path == "/openai/responses":
		target, openaiPath = f.resp, "/v1/responses"
	default:
		problems = append(problems, "unexpected path "+r.URL.Path)
	}
	if want := map[bool]string{true: "api-version=" + azureAPIVersion, false: ""}[versioned]; r.URL.RawQuery != want {
		problems = append(problems, fmt.Sprintf("query %q, want %q", r.URL.RawQuery, want))
	}
	tokens := f.tokens
	if tokens == nil {
		tokens = []string{azureToken}
	}
	switch {
	case f.mode == azureEntra && (!slices.Contains(tokens, strings.TrimPrefix(s.authorization, "Bearer ")) || s.apiKey != ""):
		problems = append(problems, fmt.Sprintf("Authorization %q and api-key %q, want the Entra ID token alone", s.authorization, s.apiKey))
	case f.mode != azureEntra && (s.apiKey != upstreamKey || s.authorization != ""):
		problems = append(problems, fmt.Sprintf("api-key %q and Authorization %q, want api-key %s alone", s.apiKey, s.authorization, upstreamKey))
	}
	f.mu.Lock()
	f.seen = append(f.seen, s)
	f.violations = append(f.violations, problems...)
	status := f.refuse[strings.TrimPrefix(s.authorization, "Bearer ")]
	limited := f.streamLimit != "" && s.authorization == "Bearer "+f.streamLimit
	f.mu.Unlock()
	if limited {
		// OpenAI's in-stream error chunk of a rate limit.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "data: {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n")
		return
	}
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "30")
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"refused by the Azure front","type":"invalid_request_error","code":"%d"}}`, status)
		return
	}
	if target == "" {
		http.Error(w, `{"error":{"message":"unknown path","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	u, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(u)
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery = openaiPath, "", ""
	r.Header.Del("Api-Key")
	r.Header.Set("Authorization", "Bearer "+upstreamKey)
	proxy.ServeHTTP(w, r)
}

// take returns and forgets what the front saw and its violations.
func (f *azureFront) take() ([]azureSeen, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, v := f.seen, f.violations
	f.seen, f.violations = nil, nil
	return s, v
}

// entraServer is an Entra ID token endpoint for azure_credentials: it
// gives each application it knows (by client id) its token.
type entraServer struct {
	srv        *httptest.Server
	tokens     map[string]string
	mu         sync.Mutex
	calls      int
	violations []string
}

// newEntraServer starts a token endpoint for the application
// azureClientID, whose token is azureToken, and the applications of
// more, client ids to tokens.
func newEntraServer(more ...string) *entraServer {
	e := &entraServer{tokens: map[string]string{azureClientID: azureToken}}
	for i := 0; i+1 < len(more); i += 2 {
		e.tokens[more[i]] = more[i+1]
	}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		var problems []string
		if r.Method != http.MethodPost || r.URL.Path != "/"+azureTenant+"/oauth2/v2.0/token" {
			problems = append(problems, r.Method+" "+r.URL.Path)
		}
		token, known := e.tokens[form.Get("client_id")]
		if !known {
			problems = append(problems, fmt.Sprintf("client_id = %q, an application this endpoint does not know", form.Get("client_id")))
		}
		for k, want := range map[string]string{"grant_type": "client_credentials",
			"client_secret": azureClientSecret, "scope": "https://cognitiveservices.azure.com/.default"} {
			if got := form.Get(k); got != want {
				problems = append(problems, fmt.Sprintf("%s = %q, want %q", k, got, want))
			}
		}
		e.mu.Lock()
		e.calls++
		e.violations = append(e.violations, problems...)
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token_type":"Bearer","expires_in":3599,"access_token":%q}`, token)
	}))
	return e
}

// azureEnv holds the Azure sites of the test environment.
type azureEnv struct {
	fronts map[azureMode]*azureFront
	entra  *entraServer
	// sites are llmbridge sites with an azure-openai upstream, by mode;
	// responsesSite has an azure-openai-responses upstream (v1, api-key).
	sites         map[azureMode]string
	responsesSite string
	respFront     *azureFront
}

// newAzureEnv starts the Azure fronts and the Entra ID endpoint. It runs
// before the sites' ports are chosen, so that none of theirs is taken.
func newAzureEnv(e *testEnv) *azureEnv {
	a := &azureEnv{fronts: map[azureMode]*azureFront{}, sites: map[azureMode]string{}, entra: newEntraServer()}
	chat, resp := e.mocks[openaiChat].srv.URL, e.mocks[openaiResponses].srv.URL
	for _, m := range []azureMode{azureV1, azureVersioned, azureEntra} {
		a.fronts[m] = newAzureFront(m, chat, resp)
	}
	a.respFront = newAzureFront(azureV1, chat, resp)
	return a
}

// addSites adds the Azure sites to the Caddyfile through site.
func (a *azureEnv) addSites(next func() int, site func(port int, p proto, upstreamAddr, extra, siteExtra string) string) {
	extra := map[azureMode]string{
		azureV1:        "\t\tapi_key " + upstreamKey + "\n",
		azureVersioned: "\t\tapi_key " + upstreamKey + "\n\t\tazure_api_version " + azureAPIVersion + "\n",
		azureEntra:     "\t\tazure_credentials " + azureTenant + " " + azureClientID + " " + azureClientSecret + " " + a.entra.srv.URL + "\n",
	}
	for _, m := range []azureMode{azureV1, azureVersioned, azureEntra} {
		a.sites[m] = site(next(), "azure-openai", a.fronts[m].addr(), extra[m], "")
	}
	a.responsesSite = site(next(), "azure-openai-responses", a.respFront.addr(), extra[azureV1], "")
}

// azureSites is how many ports addSites takes.
const azureSites = 4

// TestAzureUpstreams sends every SDK client's conversation, streamed and
// not, to azure-openai upstreams of each kind: the v1 paths with api-key,
// a deployment's path with an api-version, and an Entra ID token. A
// Responses client passes through to Azure's Responses API; every other
// client is translated to Chat Completions. The Entra ID token is asked
// for once and reused.
func TestAzureUpstreams(t *testing.T) {
	env := setup(t)
	clients, streamers := sdkClients(), streamingClients()
	for _, mode := range []azureMode{azureV1, azureVersioned, azureEntra} {
		front := env.azure.fronts[mode]
		for _, cp := range []proto{openaiChat, openaiResponses, anthropicMsgs, gemini} {
			wire := "/chat/completions"
			if cp == openaiResponses {
				wire = "/responses"
			}
			for _, stream := range []bool{false, true} {
				name := fmt.Sprintf("%s client, %s, stream %v", cp, mode, stream)
				env.mocks.resetAll(t)
				front.take()
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				var text string
				var err error
				conv := sharedConversation(cp.defaultModel())
				if stream {
					var res streamResult
					res, err = streamers[cp].stream(ctx, env.azure.sites[mode], conv, streamOptions{})
					if err == nil && !res.Terminal {
						err = fmt.Errorf("the stream ended without its terminal event")
					}
					text = res.Text
				} else {
					var res result
					res, err = clients[cp].generate(ctx, env.azure.sites[mode], conv)
					text = res.Text
				}
				cancel()
				seen, violations := front.take()
				if err != nil || text == "" {
					t.Errorf("%s: text %q, error %s", name, text, describeErr(err))
				}
				for _, v := range violations {
					t.Errorf("%s: Azure front: %s", name, v)
				}
				if len(seen) != 1 || !strings.HasSuffix(seen[0].path, wire) {
					t.Errorf("%s: Azure received %+v, want one request to its %s path", name, seen, wire)
				}
				if mode == azureVersioned && wire == "/chat/completions" && len(seen) == 1 &&
					seen[0].path != "/openai/deployments/"+url.PathEscape(cp.defaultModel())+"/chat/completions" {
					t.Errorf("%s: path %s does not name the deployment %s", name, seen[0].path, cp.defaultModel())
				}
			}
		}
	}
	env.azure.entra.mu.Lock()
	calls, violations := env.azure.entra.calls, env.azure.entra.violations
	env.azure.entra.mu.Unlock()
	if calls != 1 || len(violations) > 0 {
		t.Errorf("Entra ID token endpoint: %d calls (want 1: the token is cached), problems %v", calls, violations)
	}

	// An azure-openai-responses upstream serves a Chat client through its
	// Chat Completions alternate, and translates the others to Responses.
	for cp, wire := range map[proto]string{openaiChat: "/openai/v1/chat/completions", anthropicMsgs: "/openai/v1/responses"} {
		env.mocks.resetAll(t)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		res, err := clients[cp].generate(ctx, env.azure.responsesSite, sharedConversation(cp.defaultModel()))
		cancel()
		seen, violations := env.azure.respFront.take()
		if err != nil || res.Text == "" || len(violations) > 0 || len(seen) != 1 || seen[0].path != wire {
			t.Errorf("%s client of azure-openai-responses: %q %s; Azure saw %+v %v, want %s", cp, res.Text, describeErr(err), seen, violations, wire)
		}
	}
}

// TestAzureClients sends requests with openai-go's Azure options (a
// deployment's path with api-version, the api-key header) to llmbridge
// sites with client_keys: Azure's paths are recognised as openai-chat and
// openai-responses requests, the deployment names the model, and api-key
// is accepted as the client's key.
func TestAzureClients(t *testing.T) {
	env := setup(t)
	for _, up := range []proto{anthropicMsgs, gemini, openaiChat} {
		base := env.gated[up]
		newClient := func(key string) openai.Client {
			return openai.NewClient(azure.WithEndpoint(base, azureAPIVersion), azure.WithAPIKey(key), azure.WithUnsafeAllowHTTP(),
				openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
		}
		c := newClient(gateKey)
		env.mocks.resetAll(t)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		params, opts := chatParams(sharedConversation("gpt-4o-deployment"))
		resp, err := c.Chat.Completions.New(ctx, params, opts...)
		if err != nil || len(resp.Choices) == 0 || resp.Choices[0].Message.Content == "" {
			t.Errorf("Azure Chat client toward %s: %s", up, describeErr(err))
		} else if rec, _ := env.mocks[up].lastRequest(); rec == nil || rec.model(up) != "gpt-4o-deployment" {
			t.Errorf("Azure Chat client toward %s: the upstream got model %q, want the deployment", up, rec.model(up))
		}

		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		st := c.Chat.Completions.NewStreaming(ctx, params, opts...)
		var text strings.Builder
		finished := false
		for st.Next() {
			for _, ch := range st.Current().Choices {
				text.WriteString(ch.Delta.Content)
				finished = finished || ch.FinishReason != ""
			}
		}
		if err := st.Err(); err != nil || text.Len() == 0 || !finished {
			t.Errorf("Azure Chat stream toward %s: %q, finished %v, %s", up, text.String(), finished, describeErr(err))
		}
		st.Close()

		rp, ropts := responsesParams(sharedConversation("gpt-4o-deployment"))
		rr, err := c.Responses.New(ctx, rp, ropts...)
		if err != nil || rr.OutputText() == "" {
			t.Errorf("Azure Responses client toward %s: %s", up, describeErr(err))
		}

		env.mocks.resetAll(t)
		bad := newClient("not-a-key")
		_, err = bad.Chat.Completions.New(ctx, params, opts...)
		if status, ok := sdkErrorStatus(err); !ok || status != http.StatusUnauthorized {
			t.Errorf("Azure client with a wrong key toward %s: %s, want 401", up, describeErr(err))
		}
		env.mocks.assertNoUpstreamCall(t, "an Azure client with a wrong key")
	}
}
