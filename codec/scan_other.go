//go:build !amd64 || purego

package codec

// stringMasks classifies the 64 bytes at p: quotes, backslashes and
// control characters, bit i standing for p[i]. The caller guarantees that
// 64 bytes are readable.
func stringMasks(p *byte) (quote, backslash, control uint64) {
	return stringMasksPortable(p)
}
