//go:build amd64 && !purego

package jsonx

// StringMasks classifies the 64 bytes at p into three masks, bit i
// standing for p[i]: the quotes, the backslashes and the control characters
// (bytes below 0x20), the bytes that end, escape or invalidate a JSON
// string. This version works sixteen bytes at a time with SSE2 (part of
// every amd64 CPU); the purego build tag selects the portable one. The
// caller guarantees that 64 bytes are readable at p.
//
//go:noescape
func StringMasks(p *byte) (quote, backslash, control uint64)

// plainBlocks returns how many of the n bytes at p, in whole 64-byte
// blocks from the first, come before the first block that holds a quote, a
// backslash or a control character: the run of text a string's validation
// skips without classifying it byte by byte. This version tests sixteen
// bytes at a time with SSE2, one branch per block, in one call for the
// whole run.
//
//go:noescape
func plainBlocks(p *byte, n int) int
