//go:build amd64 && !purego

package codec

// plainPrefix returns how many leading bytes of s are plain string content
// (no quote, backslash or control character), checking sixteen bytes at a
// time with SSE2 (part of every amd64 CPU). It looks at whole 16-byte
// blocks only: the result is either the index of the first special byte or
// where the whole blocks end, and the caller's word loop goes on from there.
//
//go:noescape
func plainPrefix(s string) int

// asciiPrefix is plainPrefix that also stops at bytes above 0x7f, which an
// encoder must check as UTF-8.
//
//go:noescape
func asciiPrefix(s string) int

// vectorised tells the tests that the prefix scans find the first special
// byte of the whole blocks exactly.
const vectorised = true

// stringMasks classifies the 64 bytes at p, bit i standing for p[i]:
// quotes, backslashes and control characters. The caller guarantees that 64
// bytes are readable.
//
//go:noescape
func stringMasks(p *byte) (quote, backslash, control uint64)
