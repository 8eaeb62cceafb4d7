// Package observe owns the record of one request through llmbridge (an
// Exchange: the protocols and models on both sides, the status the client
// got, the usage and stop reason the upstream reported, the timings) and
// everything that publishes it: the {http.llmbridge.*} placeholders and
// the access log's llmbridge object (MapPlaceholders, LogFields), the
// Prometheus collectors (Metrics), the OpenTelemetry GenAI spans
// (Tracing, Telemetry, content capture) and the prices of usage (Prices).
//
// The handler package's writers fill in an Exchange and its record
// function publishes it; this package knows Caddy's replacer and the
// telemetry libraries but no request path, and imports only the codec,
// codec/rules, caddymodule/limits and caddymodule/internal/glob.
package observe
