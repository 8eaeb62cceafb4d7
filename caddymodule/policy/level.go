// Package policy holds what a site's policy toward the upstream is made
// of, apart from the requests it applies to: the capability policy's
// level (on_unsupported), the drop setting's paths and their removal from
// a body, the model_rule blocks of the Caddyfile (read and written), and
// the lessons errors that teach leave per provider. The handler package
// applies them to each request; this package knows no HTTP and imports
// only the codec and its rules.
package policy

import "fmt"

// Level is the on_unsupported level.
type Level uint8

// The levels.
const (
	// Safe drops hints and refuses what a translation cannot carry.
	Safe Level = iota
	// Strict refuses a request that would lose any field.
	Strict
	// Lenient drops capability fields as hints are dropped.
	Lenient
)

// ParseLevel parses an on_unsupported value; "" is safe.
func ParseLevel(s string) (Level, error) {
	switch s {
	case "", "safe":
		return Safe, nil
	case "strict":
		return Strict, nil
	case "lenient":
		return Lenient, nil
	}
	return 0, fmt.Errorf("on_unsupported must be strict, safe or lenient, got %q", s)
}

// MaxRounds bounds how often a lenient request is decoded or encoded
// again after dropping a field, and how often a drop path is searched
// again in a body with repeated keys.
const MaxRounds = 32

// String is the level's name.
func (l Level) String() string {
	switch l {
	case Strict:
		return "strict"
	case Lenient:
		return "lenient"
	}
	return "safe"
}
