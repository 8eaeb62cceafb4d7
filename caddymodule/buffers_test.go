package caddymodule

import "testing"

// TestBufferClasses checks that a buffer is given room for what was asked
// and goes back to a class whose buffers are no larger than it.
func TestBufferClasses(t *testing.T) {
	tests := []struct{ n, size int }{
		{0, 1 << 10}, {1, 1 << 10}, {1 << 10, 1 << 10}, {1<<10 + 1, 1536}, {1536, 1536}, {1537, 2 << 10},
		{5994, 6 << 10}, {6<<10 + 1, 8 << 10}, {100 << 10, 128 << 10}, {1 << 20, 1 << 20}, {4 << 20, 2 << 20},
	}
	for _, tt := range tests {
		if got := bufferClassSize(bufferClass(tt.n)); got != tt.size {
			t.Errorf("a buffer for %d bytes has %d, want %d", tt.n, got, tt.size)
		}
	}
	for c := range len(bufferPools) {
		if size := bufferClassSize(c); bufferClass(size) != c {
			t.Errorf("class %d (%d bytes) is not the class of its size", c, size)
		}
	}
	// A buffer grown by appending goes to the largest class it fills.
	b := make([]byte, 0, 7<<10)
	putBuffer(&b)
	if got := getBuffer(6 << 10); cap(*got) < 6<<10 {
		t.Errorf("getBuffer(6 KB) has room for %d", cap(*got))
	}
	if bufferClassSize(len(bufferPools)-1) != maxPooledBuffer {
		t.Errorf("the largest class is %d bytes, want %d", bufferClassSize(len(bufferPools)-1), maxPooledBuffer)
	}
}
