// Command caddy is Caddy with the standard modules and llmbridge compiled in.
//
// Run it on the example configuration with:
//
//	go run ./cmd/caddy run --config Caddyfile.example
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/llmbridge/llmbridge"
)

func main() {
	caddycmd.Main()
}
