// Package caddytest holds llmbridge's integration tests: a real Caddy with
// the module, mock upstreams that speak each protocol (and replay recorded
// provider traffic), and the official SDKs as clients. It has no non-test
// code beyond this comment.
package caddytest
