package pool

import (
	"net/http"
	"testing"
	"unsafe"
)

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
	Put(&b)
	if got := Get(6 << 10); cap(*got) < 6<<10 {
		t.Errorf("Get(6 KB) has room for %d", cap(*got))
	}
	if bufferClassSize(len(bufferPools)-1) != MaxPooled {
		t.Errorf("the largest class is %d bytes, want %d", bufferClassSize(len(bufferPools)-1), MaxPooled)
	}
}

// TestSizes sizes buffers for what they will hold.
func TestSizes(t *testing.T) {
	if got := ResponseSize(http.Header{"Content-Length": {"5000"}}); got != 5000 {
		t.Errorf("a 5000-byte body: %d", got)
	}
	if got := ResponseSize(http.Header{"Content-Length": {"1073741824"}}); got != MaxPooled {
		t.Errorf("a 1 GB body: %d, want the largest pooled size", got)
	}
	if got := ResponseSize(http.Header{}); got != StreamSize {
		t.Errorf("a body of unknown length: %d", got)
	}
	if got := EncodedSize(8000); got != 8000+1000+MinPooled {
		t.Errorf("EncodedSize(8000) = %d", got)
	}
	Put(nil)
	tiny := make([]byte, 0, 16)
	Put(&tiny)
	huge := make([]byte, 0, 2*MaxPooled)
	Put(&huge)
	if got := Get(MinPooled); cap(*got) == 16 || cap(*got) == 2*MaxPooled {
		t.Errorf("a buffer outside the classes was pooled: %d", cap(*got))
	}
}

// TestString reads a buffer as a string without a copy.
func TestString(t *testing.T) {
	b := []byte("conversation")
	if s := String(b); s != "conversation" || unsafe.StringData(s) != &b[0] {
		t.Errorf("String = %q, a copy: %v", s, unsafe.StringData(s) != &b[0])
	}
	if String(nil) != "" {
		t.Error("String(nil) is not empty")
	}
}
