// Package rules knows what each real model accepts and fits a canonical
// request to it before the request is encoded for the upstream.
//
// Providers accept or reject requests by model, not only by protocol: an
// output-token cap, a thinking budget range, reasoning efforts the model
// takes, sampling settings it refuses, whether it takes a trailing
// assistant message. The table (Builtin, from the embedded files under
// data/) holds those facts per provider and model glob, each row with the
// sources it was taken from; operators add or override rows (Table.With)
// so that a model released tomorrow works the same day.
//
// Fit changes a request only where a rule requires it and reports every
// change as an Adjustment. A change that keeps what the client asked for
// (a budget clamped into range, an effort moved to the nearest level the
// model takes, a cap applied) is ClassAdjust; one that changes what the
// model is asked to do (a trailing assistant message removed, stop
// sequences dropped) is ClassChange. The caller's policy decides which are
// made and which refuse the request.
package rules
