package jsonx

// IndexedArenaIn is IndexedArena writing into buf (emptied first) rather
// than allocating: a decoder that decodes document after document into
// the same place passes the buffer of the previous one (Buffer), whose
// strings must no longer be in use.
func IndexedArenaIn(x *Index, buf []byte) Arena {
	a := IndexedArena(x)
	a.buf = buf[:0]
	return a
}

// Buffer returns the arena's buffer, for the next IndexedArenaIn.
func (a *Arena) Buffer() []byte { return a.buf }
