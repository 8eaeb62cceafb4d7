package caddymodule

import (
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"
)

// TestCaddyfileAdapt pins the JSON that the Caddyfile directive adapts to,
// including its position before reverse_proxy whatever order it is written
// in.
func TestCaddyfileAdapt(t *testing.T) {
	caddytest.AssertAdapt(t, `:8080 {
	reverse_proxy localhost:9000
	llmbridge /v1/* {
		upstream vertex-anthropic
		client anthropic-messages
		vertex_project proj
		vertex_location us-east5
		api_key {env.KEY}
		default_max_tokens 8192
		max_request_body 4MiB
		max_event_size 2MiB
	}
}`, "caddyfile", `{
	"apps": {
		"http": {
			"servers": {
				"srv0": {
					"listen": [
						":8080"
					],
					"routes": [
						{
							"match": [
								{
									"path": [
										"/v1/*"
									]
								}
							],
							"handle": [
								{
									"api_key": "{env.KEY}",
									"client": "anthropic-messages",
									"cloud": {
										"location": "us-east5",
										"name": "google",
										"project": "proj"
									},
									"default_max_tokens": 8192,
									"handler": "llmbridge",
									"max_event_size": 2097152,
									"max_request_body": 4194304,
									"upstream": "vertex-anthropic"
								}
							]
						},
						{
							"handle": [
								{
									"handler": "reverse_proxy",
									"upstreams": [
										{
											"dial": "localhost:9000"
										}
									]
								}
							]
						}
					]
				}
			}
		}
	}
}`)
}
