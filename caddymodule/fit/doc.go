// Package fit fits a site's requests to what its upstream's models accept,
// under the site's capability policy (on_unsupported) and drop setting:
// decoding a client's body and encoding it toward the upstream under the
// policy (DecodeRequest, EncodeRequest: lenient drops what it can, strict
// refuses any loss, every rejection explained with the setting that would
// let it through), the model rules (Fit: the table's row for the model,
// its family's newest row for a model newer than the table, the lessons
// the provider's refusals taught first), a passthrough body routed to
// another model edited in place (FitPassthrough), and the reading of a
// refusal for what it teaches (Learn, Refit). What it adjusts and drops
// is published in the Llmbridge-Adjusted and Llmbridge-Dropped headers,
// the debug log and the metrics (ReportAdjusted, ReportDropped).
//
// The handler sends, retries and answers; this package only decides. It
// imports the codec and its rules, caddymodule/policy (what a policy is
// made of) and caddymodule/observe (the metrics), never the handler
// package.
package fit
