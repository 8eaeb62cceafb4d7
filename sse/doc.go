// Package sse reads and writes Server-Sent Events incrementally.
package sse
