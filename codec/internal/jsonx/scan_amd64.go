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
