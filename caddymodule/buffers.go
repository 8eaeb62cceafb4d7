package caddymodule

import "sync"

// maxPooledBuffer is the largest buffer kept for reuse: rare huge requests
// should not pin their memory in the pool forever.
const maxPooledBuffer = 1 << 20

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// getBuffer returns an empty buffer from the pool.
func getBuffer() *[]byte {
	b := bufferPool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// putBuffer returns b to the pool unless it grew too large.
func putBuffer(b *[]byte) {
	if b == nil || cap(*b) > maxPooledBuffer {
		return
	}
	bufferPool.Put(b)
}
