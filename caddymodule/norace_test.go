//go:build !race

package caddymodule

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
