package caddytest

import (
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// newFleetSDKBalancer starts two Caddy instances, each a process of its
// own sharing one Valkey server, with a site toward the SDK runs'
// anthropic-messages mock, and a load balancer before them that sends
// each request to the other instance than the last: a tool loop's second
// step lands where its first step's items were not minted. The store's
// timeout is generous, as in the fleet tests: under a loaded machine the
// default 25ms can pass, and an item kept in one instance's memory
// instead (the store's outage path) is not found by the other. It returns
// the balancer's URL.
func newFleetSDKBalancer(t *testing.T, env *sdkEnv) string {
	t.Helper()
	srv := valkeytest.Start(t)
	var backends []*url.URL
	for i := range 2 {
		ports, err := freePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		route := ""
		if m := cliModels[openaiResponses][anthropicMsgs]; m != "" {
			route = "\t\tmodel * " + m + "\n"
		}
		caddyfile := fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	llmbridge {
		state valkey {
			address %s
			key_prefix sdk-fleet:
			timeout 500ms
		}
	}
}

http://127.0.0.1:%d {
	llmbridge {
		upstream anthropic-messages
%s%s	}
	reverse_proxy %s
}
`, ports[0], ports[1], ports[2], srv.Addr, ports[3], cloudSettings(anthropicMsgs), route, env.mocks[anthropicMsgs].addr())
		startInstance(t, fmt.Sprintf("sdk-instance%d", i), caddyfile, fmt.Sprintf("127.0.0.1:%d", ports[3]))
		u, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", ports[3]))
		backends = append(backends, u)
	}
	var next atomic.Uint32
	lb := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(backends[next.Add(1)%2])
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
	})
	t.Cleanup(lb.Close)
	return lb.URL
}
