package caddymodule

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	awscloud "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/google"
	"github.com/llmbridge/llmbridge/codec/rules"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    Handler
		wantErr string
	}{
		{
			name: "every option",
			input: `llmbridge {
				upstream vertex-anthropic
				client openai-chat
				vertex_project my-proj
				vertex_location us-east5
				api_key {env.KEY}
				default_max_tokens 8192
				max_request_body 1MiB
			}`,
			want: withCloud(Handler{Upstream: "vertex-anthropic", Client: "openai-chat",
				APIKey: "{env.KEY}", DefaultMaxTokens: 8192, MaxRequestBody: 1 << 20}, &google.Cloud{Project: "my-proj", Location: "us-east5"}),
		},
		{
			name: "model rules",
			input: `llmbridge {
				upstream anthropic-messages
				model claude-* claude-$1
				model gpt-4o claude-sonnet-4-5
				response_model upstream
			}`,
			want: Handler{Upstream: "anthropic-messages", ResponseModel: "upstream",
				Models: []ModelRoute{{Match: "claude-*", Upstream: "claude-$1"}, {Match: "gpt-4o", Upstream: "claude-sonnet-4-5"}}},
		},
		{
			name: "dialect and model_rule",
			input: `llmbridge {
				upstream openai-chat
				dialect deepseek
				model_rule deepseek-v9* {
					like deepseek-v4-pro
					max_output 500000
					efforts low high
					source https://example.com/v9
				}
				model_rule my-* {
					reasoning budget
					budget 128 32768
					always_thinks
					sampling free
					no_prefill
					signed_calls
					rejects stop
				}
				model_rule acme-codex* {
					responses_only
					retired 2027-01-31
					vertex_locations global us
				}
			}`,
			want: Handler{Upstream: "openai-chat", Dialect: "deepseek", ModelRules: []rules.Rule{
				{Models: []string{"deepseek-v9*"}, Like: "deepseek-v4-pro", MaxOutput: 500000, Efforts: []string{"low", "high"}, Sources: []string{"https://example.com/v9"}},
				{Models: []string{"my-*"}, Reasoning: "budget", BudgetMin: 128, BudgetMax: 32768, AlwaysThinks: true, NoPrefill: true, SignedCalls: true, Rejects: []string{"stop"}},
				{Models: []string{"acme-codex*"}, ResponsesOnly: true, Retired: "2027-01-31", VertexLocations: []string{"global", "us"}},
			}},
		},
		{
			name: "client keys, telemetry and prices",
			input: `llmbridge {
				upstream anthropic-messages
				client_keys k1 {env.K2}
				client_keys {
					team-a {env.TEAM_A}
					ci sk-ci
				}
				otel_content on 4KiB
				model_rule claude-sonnet-4* {
					price input 3 output 15 cache_read 0.3 cache_write 3.75 source https://example.com/pricing date 2026-11-30
				}
			}`,
			want: Handler{Upstream: "anthropic-messages",
				ClientKeys:  []ClientKey{{Key: "k1"}, {Key: "{env.K2}"}, {Name: "team-a", Key: "{env.TEAM_A}"}, {Name: "ci", Key: "sk-ci"}},
				OTelContent: true, OTelContentMax: 4096,
				ModelRules: []rules.Rule{{Models: []string{"claude-sonnet-4*"},
					Price: &rules.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, Source: "https://example.com/pricing", Date: "2026-11-30"}}}},
		},
		{name: "otel_content off", input: "llmbridge {\n upstream gemini\n otel_content off\n}", want: Handler{Upstream: "gemini"}},
		{name: "websocket bad", input: "llmbridge {\n upstream openai-responses\n websocket relay\n}", wantErr: `websocket: want translate or passthrough, got "relay"`},
		{name: "cache bad", input: "llmbridge {\n upstream anthropic-messages\n cache always\n}", wantErr: `cache: want auto or off, got "always"`},
		{name: "cache_ttl bad", input: "llmbridge {\n upstream anthropic-messages\n cache_ttl 2h\n}", wantErr: `cache_ttl: want 5m or 1h, got "2h"`},
		{name: "max_event_size bad", input: "llmbridge {\n upstream gemini\n max_event_size 2GiB\n}", wantErr: `max_event_size: want a size such as 8MiB, got "2GiB"`},
		{name: "api_key without a key", input: "llmbridge {\n upstream gemini\n api_key\n}", wantErr: "wrong argument count"},
		{name: "otel_content bad", input: "llmbridge {\n upstream gemini\n otel_content yes\n}", wantErr: "otel_content takes on or off"},
		{name: "otel_content bad size", input: "llmbridge {\n upstream gemini\n otel_content on lots\n}", wantErr: "want a size"},
		{name: "client_keys name twice", input: "llmbridge {\n upstream gemini\n client_keys {\n a k1\n a k2\n }\n}", wantErr: `the name "a" is given twice`},
		{name: "client_keys named without key", input: "llmbridge {\n upstream gemini\n client_keys {\n a\n }\n}", wantErr: "one line <name> <key>"},
		{name: "price odd", input: "llmbridge {\n upstream gemini\n model_rule x {\n price input\n }\n}", wantErr: "takes pairs"},
		{name: "price unknown figure", input: "llmbridge {\n upstream gemini\n model_rule x {\n price input 1 output 2 batch 1 source s date 2026-01-01\n }\n}", wantErr: `unknown figure "batch"`},
		{name: "price not a number", input: "llmbridge {\n upstream gemini\n model_rule x {\n price input one output 2 source s date 2026-01-01\n }\n}", wantErr: "want US dollars"},
		{name: "price without date", input: "llmbridge {\n upstream gemini\n model_rule x {\n price input 1 output 2 source s\n }\n}", wantErr: "needs input, output, source and date"},
		{name: "price bad date", input: "llmbridge {\n upstream gemini\n model_rule x {\n price input 1 output 2 source s date yesterday\n }\n}", wantErr: "not a day"},
		{name: "unknown dialect", input: "llmbridge {\n upstream openai-chat\n dialect acme\n}", wantErr: `unknown dialect "acme"`},
		{name: "dialect on anthropic", input: "llmbridge {\n upstream anthropic-messages\n dialect deepseek\n}", wantErr: "dialect is only for"},
		{name: "model_rule without glob", input: "llmbridge {\n model_rule {\n max_output 1\n }\n}", wantErr: "at least one model glob"},
		{name: "model_rule unknown setting", input: "llmbridge {\n model_rule x {\n speed 1\n }\n}", wantErr: `unknown model_rule setting "speed"`},
		{name: "model_rule bad like", input: "llmbridge {\n upstream openai-chat\n model_rule x {\n like nothing-known\n }\n}", wantErr: `like "nothing-known"`},
		{name: "model_rule bad reasoning", input: "llmbridge {\n upstream openai-chat\n model_rule x {\n reasoning maybe\n }\n}", wantErr: `unknown reasoning kind "maybe"`},
		{name: "model_rule bad budget", input: "llmbridge {\n model_rule x {\n budget 1\n }\n}", wantErr: "budget takes two arguments"},
		{name: "model_rule flag with argument", input: "llmbridge {\n model_rule x {\n no_prefill yes\n }\n}", wantErr: "takes no argument"},
		{name: "model one argument", input: "llmbridge {\n model gpt-4o\n}", wantErr: "wrong argument count"},
		{name: "model three arguments", input: "llmbridge {\n model a b c\n}", wantErr: "model takes two arguments"},
		{name: "model bad glob", input: "llmbridge {\n model a** b\n}", wantErr: "two adjacent wildcards"},
		{name: "model bad capture", input: "llmbridge {\n model a* $3\n}", wantErr: "refers to $3"},
		{name: "bad response_model", input: "llmbridge {\n response_model both\n}", wantErr: "want client or upstream"},
		{name: "minimal", input: "llmbridge {\n upstream gemini\n}", want: Handler{Upstream: "gemini"}},
		{name: "azure", input: "llmbridge {\n upstream azure-openai\n azure_api_version 2024-10-21\n azure_credentials t c s https://login.example\n}",
			want: withCloud(Handler{Upstream: "azure-openai"}, &azure.Cloud{APIVersion: "2024-10-21", Credentials: []azure.Application{{TenantID: "t", ClientID: "c", ClientSecret: "s", AuthorityHost: "https://login.example"}}})},
		{name: "vertex settings beside another cloud's", input: "llmbridge {\n upstream azure-openai\n vertex_project p\n vertex_location l\n azure_api_version 2024-10-21\n}",
			want: withCloud(Handler{Upstream: "azure-openai"}, &azure.Cloud{APIVersion: "2024-10-21"})},
		{name: "azure pool", input: "llmbridge {\n upstream azure-openai\n azure_credentials t c0 s\n azure_credentials t c1 s\n}",
			want: withCloud(Handler{Upstream: "azure-openai"}, &azure.Cloud{Credentials: []azure.Application{{TenantID: "t", ClientID: "c0", ClientSecret: "s"}, {TenantID: "t", ClientID: "c1", ClientSecret: "s"}}})},
		{name: "aws profiles", input: "llmbridge {\n upstream bedrock\n aws_region us-east-1\n aws_profile a b\n aws_profile c\n}",
			want: withCloud(Handler{Upstream: "bedrock"}, &awscloud.Cloud{Region: "us-east-1", Profiles: []string{"a", "b", "c"}})},
		{name: "azure toward vertex", input: "llmbridge {\n upstream vertex\n vertex_project p\n vertex_location l\n azure_api_version 2024-10-21\n}",
			wantErr: "azure_api_version and azure_credentials are only for the azure-openai upstreams, not vertex"},
		{name: "aws profile without a name", input: "llmbridge {\n upstream bedrock\n aws_region us-east-1\n aws_profile\n}", wantErr: "aws_profile takes the name of a profile"},
		{name: "azure credentials arguments", input: "llmbridge {\n upstream azure-openai\n azure_credentials t c\n}", wantErr: "azure_credentials takes <tenant_id> <client_id> <client_secret>"},
		{name: "inline argument", input: "llmbridge gemini", wantErr: "wrong argument count"},
		{name: "unknown option", input: "llmbridge {\n upstreams gemini\n}", wantErr: `unknown subdirective "upstreams"`},
		{name: "missing value", input: "llmbridge {\n upstream\n}", wantErr: "wrong argument count"},
		{name: "two values", input: "llmbridge {\n upstream a b\n}", wantErr: "takes one argument"},
		{name: "bad max tokens", input: "llmbridge {\n default_max_tokens -1\n}", wantErr: "positive integer"},
		{name: "bad size", input: "llmbridge {\n max_request_body lots\n}", wantErr: "want a size"},
		{name: "item cache", input: "llmbridge {\n upstream gemini\n item_cache 8MiB 10m\n}",
			want: Handler{Upstream: "gemini", ItemCacheSize: 8 << 20, ItemCacheTTL: caddy.Duration(10 * time.Minute)}},
		{name: "item cache size only", input: "llmbridge {\n upstream gemini\n item_cache 1MiB\n}", want: Handler{Upstream: "gemini", ItemCacheSize: 1 << 20}},
		{name: "item cache off", input: "llmbridge {\n upstream gemini\n item_cache off\n}", want: Handler{Upstream: "gemini", ItemCacheSize: -1}},
		{name: "item cache off with ttl", input: "llmbridge {\n item_cache off 1h\n}", wantErr: "takes no duration"},
		{name: "item cache bad size", input: "llmbridge {\n item_cache lots\n}", wantErr: "want a size such as 64MiB"},
		{name: "item cache bad ttl", input: "llmbridge {\n item_cache 1MiB soon\n}", wantErr: "want a duration"},
		{name: "item cache arguments", input: "llmbridge {\n item_cache\n}", wantErr: "item_cache takes"},
		{name: "conversations", input: "llmbridge {\n upstream gemini\n conversations 512MiB 2h\n}",
			want: Handler{Upstream: "gemini", ConversationsSize: 512 << 20, ConversationsTTL: caddy.Duration(2 * time.Hour)}},
		{name: "conversations off", input: "llmbridge {\n upstream gemini\n conversations off\n}", want: Handler{Upstream: "gemini", ConversationsSize: -1}},
		{name: "conversations off with ttl", input: "llmbridge {\n conversations off 1h\n}", wantErr: "conversations off takes no duration"},
		{name: "conversations bad size", input: "llmbridge {\n conversations lots\n}", wantErr: "want a size such as 256MiB"},
		{name: "conversations bad ttl", input: "llmbridge {\n conversations 1MiB soon\n}", wantErr: "want a duration"},
		{name: "conversations arguments", input: "llmbridge {\n conversations\n}", wantErr: "conversations takes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(h, tt.want) {
				t.Errorf("got %+v, want %+v", h, tt.want)
			}
		})
	}
}
