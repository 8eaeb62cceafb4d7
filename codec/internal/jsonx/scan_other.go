//go:build !amd64 || purego

package jsonx

// StringMasks classifies the 64 bytes at p into three masks, bit i
// standing for p[i]: the quotes, the backslashes and the control characters
// (bytes below 0x20), the bytes that end, escape or invalidate a JSON
// string. This is the portable version, a word at a time, used on every
// architecture but amd64 and with the purego build tag. The caller
// guarantees that 64 bytes are readable at p.
func StringMasks(p *byte) (quote, backslash, control uint64) {
	return stringMasksPortable(p)
}

// plainBlocks returns how many of the n bytes at p, in whole 64-byte
// blocks from the first, come before the first block that holds a quote, a
// backslash or a control character. This is the portable version
// (plainBlocksPortable).
func plainBlocks(p *byte, n int) int { return plainBlocksPortable(p, n) }
