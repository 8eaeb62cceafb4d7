package websocket

import (
	"net"
	"testing"
)

// countingConn is a net.Conn that records its writes.
type countingConn struct {
	net.Conn
	writes []string
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func TestBatchedConn(t *testing.T) {
	under := &countingConn{}
	c := &batchedConn{Conn: under}
	_, _ = c.Write([]byte("pong"))
	c.begin()
	for _, frame := range []string{"a", "b", "c"} {
		_, _ = c.Write([]byte(frame))
	}
	if len(under.writes) != 1 {
		t.Fatalf("writes in an open batch reached the connection: %q", under.writes)
	}
	if err := c.end(); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Write([]byte("close"))
	if want := []string{"pong", "abc", "close"}; len(under.writes) != 3 || under.writes[1] != want[1] || under.writes[2] != want[2] {
		t.Fatalf("writes %q, want %q", under.writes, want)
	}
	c.begin()
	if err := c.end(); err != nil || len(under.writes) != 3 {
		t.Fatalf("an empty batch wrote: %q, %v", under.writes, err)
	}
	var none *batchedConn
	none.begin()
	if err := none.end(); err != nil {
		t.Fatal(err)
	}
}
