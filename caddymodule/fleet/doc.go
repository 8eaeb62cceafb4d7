// Package fleet shares what one instance of a gateway fleet learns of its
// upstreams with every other, as events on the shared state store's
// "events" channel: a failover target's cooldown and open circuit
// (Cooled), a pooled key's cooldown or refusal (KeyCooled), and a model
// rule a refusal taught (Learned, kept by each provider's Learner). Each
// instance applies the events to its own copy in memory (Apply, through
// the subscription Listen makes), so that no request reads the store.
//
// It imports caddymodule/state and caddymodule/failover (whose target
// states and key pools the events change), never the handler package: the
// handler publishes, and is each provider's Learner.
package fleet
