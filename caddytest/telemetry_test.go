package caddytest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	protobuf "google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver: Caddy's tracing directive
// exports to it (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, set before Caddy
// starts), and it decodes each export request's protobuf as a collector
// would, keeping the spans.
type otlpReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

// newOTLPReceiver starts a receiver and points the OpenTelemetry exporter
// environment at it, with a short batch delay so that spans arrive
// quickly.
func newOTLPReceiver() (*otlpReceiver, error) {
	o := &otlpReceiver{}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serveHTTP))
	for k, v := range map[string]string{
		"OTEL_TRACES_EXPORTER":                  "otlp",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL":    "http/protobuf",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":    o.srv.URL + "/v1/traces",
		"OTEL_BSP_SCHEDULE_DELAY":               "50",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT":     "5000",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip",
	} {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// serveHTTP takes one export request.
func (o *otlpReceiver) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces of application/x-protobuf", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := protobuf.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			o.spans = append(o.spans, ss.GetSpans()...)
		}
	}
	o.mu.Unlock()
	out, _ := protobuf.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// trace waits for n spans of trace id and returns them.
func (o *otlpReceiver) trace(t *testing.T, id []byte, n int) []*tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got []*tracepb.Span
		o.mu.Lock()
		for _, s := range o.spans {
			if bytes.Equal(s.GetTraceId(), id) {
				got = append(got, s)
			}
		}
		o.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			if len(got) < n {
				t.Fatalf("trace %x: %d spans arrived, want %d", id, len(got), n)
			}
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tracedRequest gives req a W3C traceparent of a new trace, whose id it
// returns: Caddy's server span takes it as its parent.
func tracedRequest(t *testing.T, req *http.Request) []byte {
	t.Helper()
	id := make([]byte, 24)
	if _, err := rand.Read(id); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Traceparent", "00-"+hex.EncodeToString(id[:16])+"-"+hex.EncodeToString(id[16:])+"-01")
	return id[:16]
}

// spanAttrs returns a span's attributes by key, as strings (string
// arrays as their values joined by commas).
func spanAttrs(s *tracepb.Span) map[string]string {
	m := map[string]string{}
	for _, kv := range s.GetAttributes() {
		m[kv.GetKey()] = anyValueString(kv.GetValue())
	}
	return m
}

// anyValueString renders an OTLP attribute value.
func anyValueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, anyValueString(e))
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// tracedSpans splits a request's spans into Caddy's server span and
// llmbridge's upstream call span.
func tracedSpans(t *testing.T, spans []*tracepb.Span) (server, call *tracepb.Span) {
	t.Helper()
	for _, s := range spans {
		switch s.GetKind() {
		case tracepb.Span_SPAN_KIND_SERVER:
			server = s
		case tracepb.Span_SPAN_KIND_CLIENT:
			if call != nil {
				t.Errorf("two upstream call spans: %q and %q", call.GetName(), s.GetName())
			}
			call = s
		}
	}
	if server == nil {
		t.Fatalf("no server span among %d", len(spans))
	}
	if call != nil && !bytes.Equal(call.GetParentSpanId(), server.GetSpanId()) {
		t.Errorf("the upstream call span's parent is %x, want the request's span %x", call.GetParentSpanId(), server.GetSpanId())
	}
	return server, call
}

// tracedLogEntry waits for the traced sites' access log entry of trace id.
func tracedLogEntry(t *testing.T, env *testEnv, id []byte) gjson.Result {
	t.Helper()
	want := hex.EncodeToString(id)
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(env.tracedLog)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if e := gjson.ParseBytes(sc.Bytes()); e.Get("traceID").String() == want {
				return gjson.ParseBytes(append([]byte(nil), sc.Bytes()...))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access log entry for trace %s", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// genAIProvider is gen_ai.provider.name of an upstream protocol.
func genAIProvider(up proto) string {
	switch {
	case up.isOpenAI():
		return "openai"
	case up == anthropicMsgs:
		return "anthropic"
	case up == gemini || up == geminiInteractions:
		return "gcp.gemini"
	case up == vertex || up == vertexAnthropic || up == vertexInteractions:
		return "gcp.vertex_ai"
	}
	return "aws.bedrock"
}

// genAIOperation is gen_ai.operation.name of an upstream protocol.
func genAIOperation(up proto) string {
	if up == gemini || up == vertex || up.isInteractions() {
		return "generate_content"
	}
	return "chat"
}

// tracedPrice is the price the traced sites give every model, in US
// dollars per million tokens: input, output, cache read, cache write.
var tracedPrice = [4]float64{1, 2, 0.5, 1.25}

// TestTelemetry sends every client protocol to every upstream protocol,
// streamed and not, through sites with Caddy's tracing directive, and
// checks the spans that reach an OTLP receiver (the request's span with
// the GenAI attributes, a client span for the upstream call under it, no
// content) and the access log entry of the same trace (client key name,
// protocols, upstream address, models, usage, cost).
func TestTelemetry(t *testing.T) {
	env := setup(t)
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			for _, stream := range []bool{false, true} {
				name := pairName(cp, up)
				if stream {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					env.mocks.resetAll(t)
					model := cp.defaultModel()
					req := newClientRequest(t, http.MethodPost, env.traced[up], cp, model, minimalBody(cp, model))
					if stream {
						req = newClientStreamRequestFor(t, env.traced[up], cp, model)
					}
					id := tracedRequest(t, req)
					resp := do(t, req)
					if resp.Status != http.StatusOK {
						t.Fatalf("status %d: %s", resp.Status, resp.Body)
					}
					// The model sent upstream: a Bedrock model id names
					// the vendor's model toward other upstreams.
					rec, hits := env.mocks[up].lastRequest()
					if hits != 1 {
						t.Fatalf("the upstream got %d requests", hits)
					}
					upModel := rec.model(up)
					server, call := tracedSpans(t, env.otlp.trace(t, id, 2))
					if call == nil {
						t.Fatal("no upstream call span")
					}
					if want := genAIOperation(up) + " " + upModel; call.GetName() != want {
						t.Errorf("call span %q, want %q", call.GetName(), want)
					}
					if call.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
						t.Errorf("call span status %v", call.GetStatus())
					}
					host, port, _ := strings.Cut(env.mocks[up].addr(), ":")
					sa, ca := spanAttrs(server), spanAttrs(call)
					both := map[string]string{
						"gen_ai.operation.name": genAIOperation(up), "gen_ai.provider.name": genAIProvider(up),
						"gen_ai.request.max_tokens":      "16",
						"gen_ai.request.stream":          strconv.FormatBool(stream),
						"gen_ai.response.finish_reasons": "stop",
					}
					for k, v := range map[string]string{"gen_ai.request.model": model, "llmbridge.stop_reason": "end",
						"llmbridge.usage.input_tokens":  strconv.FormatInt(defaultUsage.Input, 10),
						"llmbridge.usage.output_tokens": strconv.FormatInt(defaultUsage.Output, 10),
						"llmbridge.client.protocol":     string(cp.recognised()), "llmbridge.upstream.protocol": string(up),
						"llmbridge.client_key": "team-a"} {
						both[k+"@request"] = v
					}
					for k, v := range map[string]string{"gen_ai.request.model": upModel, "server.address": host, "server.port": port,
						"gen_ai.usage.input_tokens":  strconv.FormatInt(defaultUsage.Input, 10),
						"gen_ai.usage.output_tokens": strconv.FormatInt(defaultUsage.Output, 10)} {
						both[k+"@call"] = v
					}
					for k, v := range both {
						key, which, _ := strings.Cut(k, "@")
						for _, s := range []struct {
							name string
							a    map[string]string
						}{{"request", sa}, {"call", ca}} {
							if which != "" && which != s.name {
								continue
							}
							if s.a[key] != v {
								t.Errorf("%s span: %s = %q, want %q", s.name, key, s.a[key], v)
							}
						}
					}
					// Each request counted once: usage and cost are on one
					// span each.
					for _, k := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens"} {
						if v, ok := sa[k]; ok {
							t.Errorf("request span: %s = %q, want it on the call's span only", k, v)
						}
					}
					for _, k := range []string{"llmbridge.cost_usd", "llmbridge.client_key", "llmbridge.usage.input_tokens"} {
						if v, ok := ca[k]; ok {
							t.Errorf("call span: %s = %q, want it on the request's span only", k, v)
						}
					}
					if _, ok := ca["gen_ai.response.time_to_first_chunk"]; ok != stream {
						t.Errorf("call span: time_to_first_chunk set %v, want %v", ok, stream)
					}
					// Counts an upstream does not report are left out.
					for k, v := range map[string]int64{"gen_ai.usage.cache_read.input_tokens": defaultUsage.CacheRead,
						"gen_ai.usage.reasoning.output_tokens": defaultUsage.Reasoning} {
						if got, ok := ca[k]; ok && got != strconv.FormatInt(v, 10) {
							t.Errorf("call span: %s = %s, want %d", k, got, v)
						}
					}
					for _, s := range []map[string]string{sa, ca} {
						for _, k := range []string{"error.type", "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"} {
							if v, ok := s[k]; ok {
								t.Errorf("%s = %q, want none", k, v)
							}
						}
					}
					if got, want := sa["llmbridge.cost_usd"], tracedCost(ca); !closeTo(got, want) {
						t.Errorf("request span: cost %s, want %v", got, want)
					}
					e := tracedLogEntry(t, env, id)
					l := e.Get("llmbridge")
					for k, v := range map[string]string{"client_key": "team-a", "client_protocol": string(cp.recognised()), "upstream_protocol": string(up),
						"upstream_address": env.mocks[up].addr(), "model": model, "upstream_model": upModel, "stream": strconv.FormatBool(stream),
						"input_tokens": strconv.FormatInt(defaultUsage.Input, 10), "output_tokens": strconv.FormatInt(defaultUsage.Output, 10),
						"stop_reason": "end"} {
						if got := l.Get(k).String(); got != v {
							t.Errorf("access log %s = %q, want %q; entry %s", k, got, v, l.Raw)
						}
					}
					for _, k := range []string{"cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "cost_usd"} {
						if !l.Get(k).Exists() {
							t.Errorf("access log has no %s: %s", k, l.Raw)
						}
					}
					if l.Get("error_type").Exists() || strings.Contains(e.Raw, clientKey+`"`) {
						t.Errorf("access log entry has an error type or the client key: %s", e.Raw)
					}
					if got := l.Get("cost_usd").Float(); !closeTo(strconv.FormatFloat(got, 'g', -1, 64), tracedCost(spanAttrs(call))) {
						t.Errorf("access log cost %v, span cost %s", got, spanAttrs(server)["llmbridge.cost_usd"])
					}
				})
			}
		}
	}
}

// tracedCost is the cost of a span's usage at tracedPrice.
func tracedCost(a map[string]string) float64 {
	n := func(k string) float64 { v, _ := strconv.ParseFloat(a[k], 64); return v }
	in, cr, cw := n("gen_ai.usage.input_tokens"), n("gen_ai.usage.cache_read.input_tokens"), n("gen_ai.usage.cache_creation.input_tokens")
	return ((in-cr-cw)*tracedPrice[0] + n("gen_ai.usage.output_tokens")*tracedPrice[1] + cr*tracedPrice[2] + cw*tracedPrice[3]) / 1e6
}

// closeTo reports whether the number s is want, to rounding.
func closeTo(s string, want float64) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && math.Abs(v-want) < 1e-12
}

// TestTelemetryErrors checks error.type on both spans and in the access
// log for an upstream error and for a stream cut short (which logs the
// usage counted before the cut), and the call span's error status.
func TestTelemetryErrors(t *testing.T) {
	env := setup(t)
	for _, up := range allProtocols {
		cp := openaiChat
		if up.isOpenAI() {
			cp = anthropicMsgs
		}
		t.Run(pairName(cp, up)+"/429", func(t *testing.T) {
			env.mocks.resetAll(t)
			env.mocks[up].setScenario(scenario{Status: 429, Header: nativeErrorHeader(up, 429), Body: nativeError(up, 429, "slow down")})
			model := cp.defaultModel()
			req := newClientRequest(t, http.MethodPost, env.traced[up], cp, model, minimalBody(cp, model))
			id := tracedRequest(t, req)
			if resp := do(t, req); resp.Status != 429 {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			server, call := tracedSpans(t, env.otlp.trace(t, id, 2))
			for _, s := range []*tracepb.Span{server, call} {
				if got := spanAttrs(s)["error.type"]; got != "429" {
					t.Errorf("%s span: error.type %q, want 429", s.GetName(), got)
				}
			}
			if got := spanAttrs(server)["gen_ai.response.finish_reasons"]; got != "" {
				t.Errorf("request span: finish_reasons %q for an error answer, want none", got)
			}
			if call.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR {
				t.Errorf("call span status %v, want an error", call.GetStatus())
			}
			if got := tracedLogEntry(t, env, id).Get("llmbridge.error_type").String(); got != "429" {
				t.Errorf("access log error_type %q, want 429", got)
			}
		})
		t.Run(pairName(cp, up)+"/cut", func(t *testing.T) {
			env.mocks.resetAll(t)
			env.mocks[up].setReply(failureReply(up))
			env.mocks[up].setStreamPlan(streamPlan{failure: streamTruncatedMid})
			model := cp.defaultModel()
			req := newClientStreamRequestFor(t, env.traced[up], cp, model)
			id := tracedRequest(t, req)
			if resp := do(t, req); resp.Status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			server, call := tracedSpans(t, env.otlp.trace(t, id, 2))
			for _, s := range []*tracepb.Span{server, call} {
				if got := spanAttrs(s)["error.type"]; got != "bad_gateway" {
					t.Errorf("%s span: error.type %q, want bad_gateway", s.GetName(), got)
				}
			}
			l := tracedLogEntry(t, env, id).Get("llmbridge")
			if got := l.Get("error_type").String(); got != "bad_gateway" {
				t.Errorf("access log error_type %q, want bad_gateway", got)
			}
			if up.isAnthropic() {
				// message_start reports the input before the text: a
				// cut stream logs what was counted.
				if got := l.Get("input_tokens").Int(); got != defaultUsage.Input {
					t.Errorf("access log input_tokens %d after the cut, want %d; %s", got, defaultUsage.Input, l.Raw)
				}
			}
		})
	}
}

// TestTelemetryContent checks otel_content: the prompt and the completion
// on the spans, within the configured bound.
func TestTelemetryContent(t *testing.T) {
	env := setup(t)
	for _, stream := range []bool{false, true} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			env.mocks.resetAll(t)
			up, cp := anthropicMsgs, openaiChat
			env.mocks[up].setReply(reply{Text: "the completion", Stop: "end", Usage: defaultUsage})
			model := cp.defaultModel()
			req := newClientRequest(t, http.MethodPost, env.tracedContent, cp, model, minimalBody(cp, model))
			if stream {
				req = newClientStreamRequestFor(t, env.tracedContent, cp, model)
			}
			id := tracedRequest(t, req)
			if resp := do(t, req); resp.Status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			server, call := tracedSpans(t, env.otlp.trace(t, id, 2))
			if v, ok := spanAttrs(server)["gen_ai.input.messages"]; ok {
				t.Errorf("request span: input messages %s, want them on the call's span only", v)
			}
			for _, s := range []*tracepb.Span{call} {
				a := spanAttrs(s)
				if got, want := a["gen_ai.input.messages"], `[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]`; got != want {
					t.Errorf("%s span: input messages %s, want %s", s.GetName(), got, want)
				}
				if got, want := a["gen_ai.output.messages"], `[{"role":"assistant","parts":[{"type":"text","content":"the completion"}],"finish_reason":"stop"}]`; got != want {
					t.Errorf("%s span: output messages %s, want %s", s.GetName(), got, want)
				}
			}
		})
	}
}

// TestTelemetryModelCardinality sends more distinct models than the GenAI
// metrics label by name and checks that the label's values stay bounded,
// the rest counted as _OTHER.
func TestTelemetryModelCardinality(t *testing.T) {
	env := setup(t)
	for i := range 120 {
		model := fmt.Sprintf("random-model-%d-%x", i, time.Now().UnixNano())
		req := newClientRequest(t, http.MethodPost, env.traced[openaiChat], openaiChat, model, minimalBody(openaiChat, model))
		if resp := do(t, req); resp.Status != http.StatusOK {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
	}
	models := map[string]bool{}
	for key := range scrapeMetricsOf(t, "gen_ai_client_operation_duration_seconds_count{") {
		_, rest, _ := strings.Cut(key, `gen_ai_request_model="`)
		m, _, _ := strings.Cut(rest, `"`)
		models[m] = true
	}
	if len(models) > 101 {
		t.Errorf("gen_ai_request_model has %d values, want at most 100 and _OTHER", len(models))
	}
	if !models["_OTHER"] {
		t.Errorf("no _OTHER model label after 120 models")
	}
}

// TestTelemetryAzure checks the provider name of an azure-openai upstream,
// translated and passed through (a Responses client reaches Azure's
// Responses API), streamed and not, and the upstream protocol each used.
func TestTelemetryAzure(t *testing.T) {
	env := setup(t)
	for _, cp := range []proto{openaiChat, openaiResponses, anthropicMsgs} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", cp, stream), func(t *testing.T) {
				env.mocks.resetAll(t)
				model := cp.defaultModel()
				req := newClientRequest(t, http.MethodPost, env.tracedAzure, cp, model, minimalBody(cp, model))
				if stream {
					req = newClientStreamRequestFor(t, env.tracedAzure, cp, model)
				}
				id := tracedRequest(t, req)
				if resp := do(t, req); resp.Status != http.StatusOK {
					t.Fatalf("status %d: %s", resp.Status, resp.Body)
				}
				up := "azure-openai"
				if cp == openaiResponses {
					up = "azure-openai-responses"
				}
				server, call := tracedSpans(t, env.otlp.trace(t, id, 2))
				for _, s := range []*tracepb.Span{server, call} {
					a := spanAttrs(s)
					for k, v := range map[string]string{"gen_ai.provider.name": "azure.ai.openai", "gen_ai.operation.name": "chat"} {
						if a[k] != v {
							t.Errorf("%s span: %s = %q, want %q", s.GetName(), k, a[k], v)
						}
					}
				}
				if a := spanAttrs(server); a["llmbridge.upstream.protocol"] != up || a["llmbridge.client_key"] != "team-a" {
					t.Errorf("request span: upstream protocol %q client key %q, want %s and team-a", a["llmbridge.upstream.protocol"], a["llmbridge.client_key"], up)
				}
				if got := spanAttrs(call)["gen_ai.usage.input_tokens"]; got != strconv.FormatInt(defaultUsage.Input, 10) {
					t.Errorf("call span: input tokens %q, want %d", got, defaultUsage.Input)
				}
				if got := tracedLogEntry(t, env, id).Get("llmbridge.upstream_protocol").String(); got != up {
					t.Errorf("access log upstream_protocol %q, want %s", got, up)
				}
			})
		}
	}
}
