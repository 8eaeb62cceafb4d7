// Package pool lends the Caddy layer's byte buffers (request bodies read
// and encoded, response bodies held, stream output) from pools by size
// class, so that a request's buffers cost no allocation once the pools
// are warm and an open stream holds about what its request needs.
package pool

import (
	"math/bits"
	"net/http"
	"strconv"
	"sync"
	"unsafe"
)

// Buffers (request bodies read and encoded, response bodies held, stream
// output) come from pools by size class, from MinPooled to
// MaxPooled in steps of 2^k and 1.5 x 2^k. A request is given a
// buffer of about its size rather than one size for all: a stream holds
// its request's body for as long as it is open, so a thousand open
// streams of 6 KB requests hold 6 MB in 6 KB buffers where one 16 KB
// size would hold 16 MB, and a 1 MB body does not grow its buffer by
// doubling.
const (
	minBufferShift = 10 // 1 KB
	maxBufferShift = 21 // 2 MB: agent bodies reach 1 MB
	// MinPooled is the smallest buffer pooled.
	MinPooled = 1 << minBufferShift
	// MaxPooled is the largest buffer pooled.
	MaxPooled = 1 << maxBufferShift
)

// bufferPools are the pools of the size classes, smallest first: class c
// holds buffers of bufferClassSize(c) bytes.
var bufferPools [2*(maxBufferShift-minBufferShift) + 1]sync.Pool

// bufferClassSize is the size of class c's buffers.
func bufferClassSize(c int) int {
	return (2 + c%2) << (c/2 + minBufferShift - 1)
}

// bufferClass returns the smallest size class holding n bytes; n above
// MaxPooled gets the largest.
func bufferClass(n int) int {
	if n <= MinPooled {
		return 0
	}
	if n >= MaxPooled {
		return len(bufferPools) - 1
	}
	// n-1 < 2^k: class 2(k-10) is 2^k, class 2(k-10)-1 is 1.5 x 2^(k-1).
	k := bits.Len(uint(n - 1))
	c := 2 * (k - minBufferShift)
	if n <= bufferClassSize(c-1) {
		c--
	}
	return c
}

// Get returns an empty buffer with room for at least size bytes (up
// to MaxPooled; a larger need grows it by appending).
func Get(size int) *[]byte {
	c := bufferClass(size)
	// A buffer of the next class serves too: a body that outgrew the
	// size it declared went back one class up.
	for i := c; i <= min(c+1, len(bufferPools)-1); i++ {
		if b, ok := bufferPools[i].Get().(*[]byte); ok {
			*b = (*b)[:0]
			return b
		}
	}
	b := make([]byte, 0, bufferClassSize(c))
	return &b
}

// Put returns b to the pool of the largest class its capacity
// fills, unless it is smaller than the smallest or grew larger than the
// largest: rare huge bodies should not pin their memory in a pool.
func Put(b *[]byte) {
	if b == nil {
		return
	}
	n := cap(*b)
	if n < MinPooled || n > MaxPooled {
		return
	}
	c := bufferClass(n)
	if bufferClassSize(c) > n {
		c--
	}
	bufferPools[c].Put(b)
}

// StreamSize is the buffer size of a stream's pending output and of
// bodies of unknown length: a few events.
const StreamSize = 4 << 10

// ResponseSize is the buffer size for holding a response body whose
// header is hdr: its Content-Length when it has one.
func ResponseSize(hdr http.Header) int {
	if n, err := strconv.ParseInt(hdr.Get("Content-Length"), 10, 64); err == nil && n > 0 {
		return int(min(n, MaxPooled))
	}
	return StreamSize
}

// EncodedSize is the buffer size for a body translated from one of n
// bytes: translations stay close to their source's size (names and
// nesting differ, the content is the same).
func EncodedSize(n int) int {
	return n + n/8 + MinPooled
}

// String returns b, typically a pooled buffer's bytes, as a string
// without copying it, for a read that does not keep it (gjson, a map or
// store lookup): what it returns aliases b, which must stay unmodified
// while it is used.
func String(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
