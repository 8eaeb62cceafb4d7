// Package docs holds llmbridge's documentation pages (the *.md files of
// this directory). It has no code; its test checks that every relative
// link of README.md and of these pages points at an existing file (and,
// with a #fragment, at an existing heading of a markdown file), that
// README.md stays a short front page, and that every documented Caddyfile
// adapts without an error or a warning and is formatted as caddy fmt
// formats it.
package docs
