package websocket

import (
	"bufio"
	"net"
	"net/http"
	"sync"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
)

// batchingHijacker is the response writer a WebSocket is accepted on: it
// hijacks the connection as Go's server does, and hands the WebSocket
// library a connection whose writes a turn can gather (batchedConn).
type batchingHijacker struct {
	http.ResponseWriter
	conn *batchedConn
}

// Hijack takes the connection over and puts batchedConn under the
// library's buffered writer, which the server has just created empty.
func (bh *batchingHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(bh.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	bh.conn = &batchedConn{Conn: conn}
	brw.Writer.Reset(bh.conn)
	return bh.conn, brw, nil
}

// batchedConn is a hijacked connection whose writes are gathered while a
// batch is open: the library writes and flushes every frame on its own, so
// the several events a turn sends for one upstream read would cost a
// system call each; in a batch they cost one, as the same events of an
// HTTP stream do. Writes outside a batch (pongs, pings, closes, errors) go
// straight to the connection.
type batchedConn struct {
	net.Conn
	mu       sync.Mutex
	batching bool
	pending  *[]byte // the batch's bytes, a pooled buffer
}

// Write writes p, or adds it to the open batch.
func (c *batchedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batching {
		*c.pending = append(*c.pending, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// begin opens a batch. A nil connection (the library took the connection
// over otherwise) batches nothing.
func (c *batchedConn) begin() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batching = true
	if c.pending == nil {
		c.pending = pool.Get(pool.StreamSize)
	}
}

// end closes the batch and writes what it gathered. A client that reads
// slowly makes it wait here, which holds the turn (and the upstream) back.
func (c *batchedConn) end() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batching = false
	if c.pending == nil {
		return nil
	}
	var err error
	if p := *c.pending; len(p) > 0 {
		_, err = c.Conn.Write(p)
	}
	pool.Put(c.pending)
	c.pending = nil
	return err
}

// Interface guards
var (
	_ http.Hijacker = (*batchingHijacker)(nil)
	_ net.Conn      = (*batchedConn)(nil)
)
