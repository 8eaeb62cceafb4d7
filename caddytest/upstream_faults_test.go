package caddytest

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// upstreamFault is one way an upstream breaks its protocol in a
// non-streamed answer, and the status the client must get for it.
type upstreamFault struct {
	name string
	sc   func(up proto) scenario
	want int
	// says is what the client's error message must contain.
	says string
}

// upstreamFaults are what load balancers, proxies and broken upstreams
// answer in place of the protocol's body.
var upstreamFaults = []upstreamFault{
	{"html-502-page", func(proto) scenario {
		return scenario{Status: 502, Header: http.Header{"Content-Type": {"text/html"}}, Body: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"}
	}, 502, "502 Bad Gateway"},
	{"plain-404", func(proto) scenario {
		return scenario{Status: 404, Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: "404 page not found\n"}
	}, 404, "404 page not found"},
	{"html-200", func(proto) scenario {
		return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: "<html><body>Down for maintenance</body></html>"}
	}, 502, "JSON"},
	{"non-json-200", func(proto) scenario {
		return scenario{Status: 200, Body: "upstream says hello"}
	}, 502, "upstream"},
	{"truncated-json-200", func(up proto) scenario {
		b := successBody(up, up.defaultModel(), reply{Text: "A whole answer that arrives cut.", Stop: "end", Usage: defaultUsage})
		return scenario{Status: 200, Body: b[:len(b)/2]}
	}, 502, "upstream"},
	{"reset-mid-body", func(up proto) scenario {
		return scenario{Status: 200, Body: successBody(up, up.defaultModel(), reply{Text: "A whole answer that arrives cut.", Stop: "end", Usage: defaultUsage}), Reset: true}
	}, 502, "upstream"},
}

// TestUpstreamFaults checks every pair, passthrough pairs included, with
// non-streamed upstream answers that are not the protocol's: the client
// never gets a 200 with a body its SDK cannot parse or a cut answer, but an
// error in its own format with the upstream's status for an error page and
// 502 for a broken success.
func TestUpstreamFaults(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			for _, f := range upstreamFaults {
				t.Run(pairName(cp, up)+"/"+f.name, func(t *testing.T) {
					env.mocks.resetAll(t)
					name := pairName(cp, up) + " " + f.name
					env.mocks[up].setScenario(f.sc(up))
					ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
					defer cancel()
					if _, err := clients[cp].generate(ctx, env.plain[up], sharedConversation(cp.defaultModel())); err == nil {
						t.Errorf("%s: the client call succeeded", name)
					} else if status, ok := sdkErrorStatus(err); !ok || status != f.want {
						t.Errorf("%s: client error = %s, want HTTP %d", name, describeErr(err), f.want)
					}
					model := cp.defaultModel()
					resp := do(t, newClientRequest(t, http.MethodPost, env.plain[up], cp, model, minimalBody(cp, model)))
					assertErrorFormat(t, name, cp, f.want, resp)
					if msg := errorBodyMessage(resp.Body); !strings.Contains(msg, f.says) {
						t.Errorf("%s: error message %q, want it to say %q", name, msg, f.says)
					}
				})
			}
		}
	}
}
