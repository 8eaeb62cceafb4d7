//go:build amd64 && !purego

package codec

// stringMasks classifies the 64 bytes at p, bit i standing for p[i]:
// quotes, backslashes and control characters, sixteen bytes at a time with
// SSE2 (part of every amd64 CPU). The caller guarantees that 64 bytes are
// readable.
//
//go:noescape
func stringMasks(p *byte) (quote, backslash, control uint64)
