package observe

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are llmbridge's Prometheus collectors, shared by every handler
// of the process and registered in the registry of each configuration
// (Caddy makes a new one per config load), so that their values survive
// reloads as Caddy's own do.
type Metrics struct {
	requests *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	ttfe     prometheus.Histogram
	errors   *prometheus.CounterVec
	dropped  *prometheus.CounterVec
	adjusted *prometheus.CounterVec
	// droppedOutput and opaqueCarried count upstream output the client's
	// protocol cannot express: what was left out, and state kept whole to
	// travel in a continuation.
	droppedOutput *prometheus.CounterVec
	opaqueCarried *prometheus.CounterVec

	// The GenAI semantic conventions' client metrics (semconv v1.41.0),
	// in Prometheus's spelling of their names.
	tokenUsage *prometheus.HistogramVec
	duration   *prometheus.HistogramVec
	firstChunk *prometheus.HistogramVec
	// models bounds the model label values.
	models boundedLabels

	// The children of the vectors every exchange updates, resolved once
	// per label set.
	requestsBy children[requestKey, prometheus.Counter]
	tokensBy   children[string, *tokenCounters]
	genAIBy    children[genAIKey, *genAIObservers]
}

var (
	metricsOnce sync.Once
	theMetrics  *Metrics
)

// GlobalMetrics creates the collectors once.
func GlobalMetrics() *Metrics {
	metricsOnce.Do(func() {
		const ns, sub = "caddy", "llmbridge"
		theMetrics = &Metrics{
			requests: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "requests_total",
				Help: "Requests handled by llmbridge, by client protocol, upstream protocol and the HTTP status the client got.",
			}, []string{"client_protocol", "upstream_protocol", "status"}),
			tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "tokens_total",
				Help: "Tokens the upstreams reported, by type (input, output, cached, reasoning) and upstream model.",
			}, []string{"type", "upstream_model"}),
			ttfe: prometheus.NewHistogram(prometheus.HistogramOpts{
				Namespace: ns, Subsystem: sub, Name: "time_to_first_event_seconds",
				Help:    "Time from the upstream's response header to the first byte of the response written to the client.",
				Buckets: []float64{.001, .005, .025, .1, .25, .5, 1, 2.5, 5, 10, 30},
			}),
			errors: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "errors_total",
				Help: "Errors llmbridge answered itself (rejected requests, untranslatable responses, unreachable upstreams), by reason.",
			}, []string{"reason"}),
			dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "dropped_fields_total",
				Help: "Request fields dropped as hints with no equivalent upstream, by field path with array indices removed.",
			}, []string{"field"}),
			adjusted: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "adjustments_total",
				Help: "Changes made to requests to fit what the upstream model accepts, by model rule.",
			}, []string{"rule"}),
			droppedOutput: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "dropped_output_total",
				Help: "Upstream output left out of translated responses because the client protocol cannot express or carry it, by kind.",
			}, []string{"kind"}),
			opaqueCarried: prometheus.NewCounterVec(prometheus.CounterOpts{
				Namespace: ns, Subsystem: sub, Name: "opaque_carried_total",
				Help: "Upstream output the client protocol cannot express, kept whole as state to travel in a continuation back to the upstream, by kind.",
			}, []string{"kind"}),
			tokenUsage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name:    "gen_ai_client_token_usage",
				Help:    "Number of input and output tokens used (gen_ai.client.token.usage), by operation, provider, model asked upstream, token type and llmbridge client protocol.",
				Buckets: tokenBuckets,
			}, genAILabels("gen_ai_token_type")),
			duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name:    "gen_ai_client_operation_duration_seconds",
				Help:    "GenAI operation duration (gen_ai.client.operation.duration), from the request's arrival to its last byte, with error_type set for failed operations.",
				Buckets: durationBuckets,
			}, genAILabels("error_type")),
			firstChunk: prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name:    "gen_ai_client_operation_time_to_first_chunk_seconds",
				Help:    "Time from the request's arrival to the first chunk of a streamed response written to the client (gen_ai.client.operation.time_to_first_chunk).",
				Buckets: firstChunkBuckets,
			}, genAILabels()),
			models: boundedLabels{limit: maxModelLabels},
		}
	})
	return theMetrics
}

// Register adds the collectors to reg, reusing those already registered
// there (several llmbridge handlers in one configuration).
func (m *Metrics) Register(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{m.requests, m.tokens, m.ttfe, m.errors, m.dropped, m.adjusted, m.droppedOutput, m.opaqueCarried,
		m.tokenUsage, m.duration, m.firstChunk} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}

// statusLabels are the status label values, so that labelling a request
// allocates nothing.
var statusLabels = func() (s [600]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// StatusLabel is the metric label of an HTTP status: its decimal text,
// made once for the statuses there are.
func StatusLabel(status int) string {
	if status >= 0 && status < len(statusLabels) {
		return statusLabels[status]
	}
	return strconv.Itoa(status)
}

// Record counts one exchange.
func (m *Metrics) Record(x *Exchange, ttft time.Duration, haveTTFT bool) {
	if m == nil {
		return
	}
	client, upstream := string(x.Client), string(x.Upstream)
	m.requestsBy.get(requestKey{client, upstream, x.Status}, func() prometheus.Counter {
		return m.requests.WithLabelValues(client, upstream, StatusLabel(x.Status))
	}).Inc()
	if x.Usage.Known {
		u := &x.Usage
		model := m.models.get(x.UpstreamModel)
		t := m.tokensBy.get(model, func() *tokenCounters {
			return &tokenCounters{input: m.tokens.WithLabelValues("input", model), output: m.tokens.WithLabelValues("output", model),
				cached: m.tokens.WithLabelValues("cached", model), reasoning: m.tokens.WithLabelValues("reasoning", model)}
		})
		t.input.Add(float64(u.InputTokens))
		t.output.Add(float64(u.OutputTokens))
		t.cached.Add(float64(u.CacheReadTokens))
		t.reasoning.Add(float64(u.ReasoningTokens))
	}
	if haveTTFT {
		m.ttfe.Observe(ttft.Seconds())
	}
	if x.ErrReason != "" {
		m.errors.WithLabelValues(x.ErrReason).Inc()
	}
}

// RecordGenAI observes one generation exchange in the GenAI histograms:
// its token usage (input and output, as the conventions' token types),
// its duration d, and for a stream the time to its first chunk. Labels
// have bounded values: protocols and providers are fixed sets, models are
// folded into otherModel beyond maxModelLabels.
func (m *Metrics) RecordGenAI(x *Exchange, provider, errType string, d time.Duration) {
	if m == nil {
		return
	}
	op, model, client := operationName(x.Upstream), m.models.get(x.UpstreamModel), string(x.Client)
	g := m.genAIBy.get(genAIKey{op, provider, model, client, errType}, func() *genAIObservers {
		return &genAIObservers{
			input:      m.tokenUsage.WithLabelValues(op, provider, model, client, "input"),
			output:     m.tokenUsage.WithLabelValues(op, provider, model, client, "output"),
			duration:   m.duration.WithLabelValues(op, provider, model, client, errType),
			firstChunk: m.firstChunk.WithLabelValues(op, provider, model, client),
		}
	})
	if x.Usage.Known {
		g.input.Observe(float64(x.Usage.InputTokens))
		g.output.Observe(float64(x.Usage.OutputTokens))
	}
	g.duration.Observe(d.Seconds())
	if x.Stream && !x.FirstWrite.IsZero() && x.Status < 300 {
		g.firstChunk.Observe(x.FirstWrite.Sub(x.Start).Seconds())
	}
}

// genAILabels are the GenAI histograms' labels: the conventions'
// attributes in Prometheus's spelling, llmbridge's client protocol, and
// extra.
func genAILabels(extra ...string) []string {
	return append([]string{"gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "llmbridge_client_protocol"}, extra...)
}

// The GenAI histograms' buckets, as the conventions advise them: the
// time to first chunk takes the duration's (0.01 to 81.92 s), a reasoning
// model's first chunk often coming after 10 s.
var (
	tokenBuckets      = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets   = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	firstChunkBuckets = durationBuckets
)

// maxModelLabels is how many distinct models the metrics label by name;
// later ones share otherModel, so that clients naming models at random
// cannot grow the metrics without bound.
const maxModelLabels = 100

// otherModel is the label value of the models beyond maxModelLabels.
const otherModel = "_OTHER"

// boundedLabels hands out label values for up to limit distinct names,
// and otherModel for the rest. A name seen before costs a read-locked map
// lookup and no allocation.
type boundedLabels struct {
	limit int
	mu    sync.RWMutex
	seen  map[string]string
}

// get returns the label value for name.
func (b *boundedLabels) get(name string) string {
	b.mu.RLock()
	v, ok := b.seen[name]
	b.mu.RUnlock()
	if ok {
		return v
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if v, ok := b.seen[name]; ok {
		return v
	}
	if len(b.seen) >= b.limit {
		return otherModel
	}
	if b.seen == nil {
		b.seen = make(map[string]string)
	}
	// A copy: the name may alias a pooled buffer, and the label is kept.
	v = strings.Clone(name)
	b.seen[v] = v
	return v
}

// RecordDropped counts dropped fields, with array indices removed from
// their paths so that the label has a bounded set of values
// ("messages[3].cache_control" counts as "messages[].cache_control").
func (m *Metrics) RecordDropped(paths []string) {
	if m == nil {
		return
	}
	for _, p := range paths {
		m.dropped.WithLabelValues(stripIndices(p)).Inc()
	}
}

// RecordDroppedOutput counts one piece of upstream output of kind left out
// of a response.
func (m *Metrics) RecordDroppedOutput(kind string) {
	if m == nil {
		return
	}
	m.droppedOutput.WithLabelValues(outputLabel(kind)).Inc()
}

// RecordOpaqueCarried counts one piece of upstream output of kind carried
// in a continuation.
func (m *Metrics) RecordOpaqueCarried(kind string) {
	if m == nil {
		return
	}
	m.opaqueCarried.WithLabelValues(outputLabel(kind)).Inc()
}

// maxOutputLabel bounds a kind label: kinds are the upstream's own type
// names, which a misbehaving upstream could make up.
const maxOutputLabel = 64

// outputLabel is the label value for an output kind: a copy (kind may
// alias a pooled buffer), cut to maxOutputLabel bytes.
func outputLabel(kind string) string {
	if kind == "" {
		return "unknown"
	}
	if len(kind) > maxOutputLabel {
		kind = kind[:maxOutputLabel]
	}
	return strings.Clone(kind)
}

// DroppedOutputKind returns the kind of a Response.Dropped entry: the name
// in parentheses that ends it ("candidates[0].content.parts[2]
// (inlineData)"), else its path with array indices removed
// ("content[].signature").
func DroppedOutputKind(entry string) string {
	if strings.HasSuffix(entry, ")") {
		if i := strings.LastIndex(entry, " ("); i >= 0 {
			return entry[i+2 : len(entry)-1]
		}
	}
	return stripIndices(entry)
}

// RecordAdjusted counts one adjustment made under rule, whose id comes
// from the rule table (a bounded set).
func (m *Metrics) RecordAdjusted(rule string) {
	if m == nil {
		return
	}
	m.adjusted.WithLabelValues(rule).Inc()
}

// stripIndices removes the digits between brackets in a field path. The
// result never aliases p, which may point into a pooled request buffer,
// since a metric label is kept.
func stripIndices(p string) string {
	if !strings.Contains(p, "[") {
		return strings.Clone(p)
	}
	var b strings.Builder
	b.Grow(len(p))
	inIndex := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '[':
			inIndex = true
		case c == ']':
			inIndex = false
		case inIndex && c >= '0' && c <= '9':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
