// Package docs holds llmbridge's documentation pages (the *.md files of
// this directory). It has no code; its test checks that every relative
// link of README.md and of these pages points at an existing file (and,
// with a #fragment, at an existing heading of a markdown file), and that
// README.md stays a short front page.
package docs
