package clouds_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/google"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		setting, want string
	}{
		{"vertex_project", "google"}, {"google_token", "google"}, {"azure_api_version", "azure"}, {"aws_region", "aws"}, {"api_key", ""},
	} {
		c := clouds.Owning(tc.setting)
		if got := ""; c != nil {
			got = clouds.Name(c)
			if got != tc.want {
				t.Errorf("Owning(%s) = %s, want %s", tc.setting, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("Owning(%s) = nil, want %s", tc.setting, tc.want)
		}
	}
	if c := clouds.New("azure"); c == nil || clouds.Name(c) != "azure" {
		t.Errorf("New(azure) = %v", c)
	}
	if c := clouds.New("ibm"); c != nil {
		t.Errorf("New(ibm) = %v, want nil", c)
	}
	if raw := string(clouds.Raw(&google.Cloud{Project: "p"})); raw != `{"name":"google","project":"p"}` {
		t.Errorf("Raw = %s", raw)
	}
}

func TestBlocks(t *testing.T) {
	var b clouds.Blocks
	for _, s := range []struct {
		name string
		args []string
	}{
		{"vertex_project", []string{"p"}}, {"azure_api_version", []string{"2024-10-21"}}, {"vertex_location", []string{"l"}},
	} {
		if err := b.Set(s.name, s.args); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Set("api_key", []string{"k"}); err == nil || err.Error() != `unknown subdirective "api_key"` {
		t.Errorf("Set(api_key) = %v", err)
	}
	if len(b) != 2 || *b[0].(*google.Cloud) != (google.Cloud{Project: "p", Location: "l"}) || b[1].(*azure.Cloud).APIVersion != "2024-10-21" {
		t.Fatalf("blocks %+v", b)
	}
	for _, tc := range []struct {
		upstream string
		failover bool
		keyed    bool
		want     string // the settled cloud's name, or the error
	}{
		// The upstream's own cloud; the project and location another
		// cloud's upstream ignores pass.
		{"azure-openai", false, false, "azure"},
		// Azure's settings toward Vertex are refused.
		{"vertex", false, true, "error: azure_api_version and azure_credentials are only for the azure-openai upstreams, not vertex"},
		{"openai-chat", false, false, "error: azure_api_version"},
		// A failover site or an unknown upstream keeps the first.
		{"", true, false, "google"},
		{"nonesuch", false, false, "google"},
	} {
		c, err := b.Settle(tc.upstream, tc.failover, tc.keyed)
		got := "none"
		switch {
		case err != nil:
			got = "error: " + err.Error()
		case c != nil:
			got = clouds.Name(c)
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("Settle(%s, failover %v) = %s, want %s", tc.upstream, tc.failover, got, tc.want)
		}
	}
	if c, err := (clouds.Blocks{&aws.Cloud{}}).Settle("gemini", false, false); err == nil || c != nil {
		t.Errorf("AWS settings toward Gemini: %v %v", c, err)
	}
	if c, err := (clouds.Blocks{}).Settle("", true, false); c != nil || err != nil {
		t.Errorf("no settings: %v %v", c, err)
	}
	if c, err := (clouds.Blocks{&google.Cloud{Project: "p"}}).Settle("vertex", false, false); err != nil || clouds.Name(c) != "google" {
		t.Errorf("Google's settings toward Vertex: %v %v", c, err)
	}
	if c, err := (clouds.Blocks{&google.Cloud{Project: "p"}}).Settle("openai-chat", false, false); c != nil || err != nil {
		t.Errorf("a project toward OpenAI: %v %v", c, err)
	}
}

func TestNames(t *testing.T) {
	if got := clouds.SetNames(clouds.Setting{Name: "a", Set: true}, clouds.Setting{Name: "b"}, clouds.Setting{Name: "c", Set: true}); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("SetNames = %v", got)
	}
	if got := clouds.MemberName("api_key", 3); got != "api_key[3]" {
		t.Errorf("MemberName = %s", got)
	}
	if k, n := (&clouds.Credential{Key: "k", Name: "n"}), (&clouds.Credential{Name: "n"}); k.Identity() != "k" || n.Identity() != "n" {
		t.Errorf("identities %s %s", k.Identity(), n.Identity())
	}
}
