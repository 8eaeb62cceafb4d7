//go:build !amd64 || purego

package codec

// plainPrefix returns how many leading bytes of s are known to be plain
// string content. Without a vector implementation it knows none, and the
// caller's word-at-a-time loop does all the work.
func plainPrefix(s string) int { return 0 }

// vectorised tells the tests whether the prefix scans are exact.
const vectorised = false

// asciiPrefix is plainPrefix that also stops at bytes above 0x7f.
func asciiPrefix(s string) int { return 0 }

// stringMasks is never called without a vector implementation
// (vectorised is false); validString takes its word-at-a-time path.
func stringMasks(p *byte) (quote, backslash, control uint64) {
	panic("codec: stringMasks without a vector implementation")
}
