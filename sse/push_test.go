package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// pushAll feeds input to a push reader in chunks of size n and collects
// the events' data, then the final error.
func pushAll(t *testing.T, input string, n int) ([]string, error) {
	t.Helper()
	r := NewPushReader(64)
	var got []string
	for i := 0; ; i += n {
		if i < len(input) {
			r.Push([]byte(input[i:min(i+n, len(input))]))
		} else {
			r.CloseInput()
		}
		for {
			ev, err := r.Next()
			if err == ErrNeedInput {
				break
			}
			if err != nil {
				return got, err
			}
			got = append(got, string(ev.Name)+"="+string(ev.Data))
		}
	}
}

func TestPushReaderMatchesPullReader(t *testing.T) {
	inputs := []string{
		"event: a\ndata: 1\n\ndata: 2\r\n\r\ndata: [DONE]\n\n",
		"data: x\r\rdata: y\n\n{\"error\":{}}\n",
		"data: cut",
		": comment\n\ndata: z\n",
	}
	for _, input := range inputs {
		var want []string
		var wantErr error
		pr := NewReader(strings.NewReader(input), 64)
		for {
			ev, err := pr.Next()
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, string(ev.Name)+"="+string(ev.Data))
		}
		for _, n := range []int{1, 2, 3, 7, len(input)} {
			got, err := pushAll(t, input, n)
			if strings.Join(got, "|") != strings.Join(want, "|") || !errors.Is(err, wantErr) {
				t.Errorf("%q in chunks of %d: got %q, %v; want %q, %v", input, n, got, err, want, wantErr)
			}
		}
	}
}

func TestPushReaderBoundIsSticky(t *testing.T) {
	r := NewPushReader(16)
	r.Push([]byte("data: " + strings.Repeat("x", 40)))
	if _, err := r.Next(); err != ErrEventTooLarge {
		t.Fatalf("err = %v", err)
	}
	r.Push([]byte("\n\n"))
	if _, err := r.Next(); err != ErrEventTooLarge {
		t.Fatalf("err = %v, want the sticky ErrEventTooLarge", err)
	}
}

func TestPushReaderEmptyClose(t *testing.T) {
	r := NewPushReader(0)
	if _, err := r.Next(); err != ErrNeedInput {
		t.Fatalf("err = %v", err)
	}
	r.CloseInput()
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("err = %v", err)
	}
}

// pullEvents parses input with a pull reader and returns its events as
// name=data strings.
func pullEvents(input string) []string {
	var got []string
	r := NewReader(strings.NewReader(input), 64)
	for {
		ev, err := r.Next()
		if err != nil {
			return got
		}
		got = append(got, string(ev.Name)+"="+string(ev.Data))
	}
}

// TestPushReaderOffset checks the rule a raw-forwarding proxy relies on:
// right after an event, the input before Offset parses to exactly the
// events so far, and the input after it to exactly the rest, whatever the
// line ends and however the input was split.
func TestPushReaderOffset(t *testing.T) {
	inputs := []string{
		"event: a\ndata: 1\n\ndata: 2\r\n\r\ndata: [DONE]\n\n",
		"data: x\r\rdata: y\n\n{\"error\":{}}\n",
		"data: p\n{\"error\":\n \"bare\"}\n\ndata: q\n\n",
		": comment\n\ndata: z\n\n: trailing\n",
		"\xef\xbb\xbfdata: bom\r\n\r\ndata: crlf\r\n\r\n",
		"id: 1\nretry: 5\ndata: multi\ndata: line\n\nevent: e\n\ndata: last",
	}
	for _, input := range inputs {
		want := pullEvents(input)
		for _, n := range []int{1, 2, 3, 7, len(input)} {
			r := NewPushReader(64)
			var offsets []int64
			for i := 0; ; i += n {
				if i < len(input) {
					r.Push([]byte(input[i:min(i+n, len(input))]))
				} else {
					r.CloseInput()
				}
				var err error
				for {
					if _, err = r.Next(); err != nil {
						break
					}
					offsets = append(offsets, r.Offset())
				}
				if err != ErrNeedInput {
					break
				}
			}
			if len(offsets) != len(want) {
				t.Fatalf("%q in chunks of %d: %d events, want %d", input, n, len(offsets), len(want))
			}
			for k, off := range offsets {
				if off > int64(len(input)) || k > 0 && off < offsets[k-1] {
					t.Fatalf("%q in chunks of %d: offsets %v", input, n, offsets)
				}
				before, after := pullEvents(input[:off]), pullEvents(input[off:])
				if strings.Join(before, "|") != strings.Join(want[:k+1], "|") || strings.Join(after, "|") != strings.Join(want[k+1:], "|") {
					t.Errorf("%q in chunks of %d, event %d at offset %d: before %q, after %q; want %q then %q",
						input, n, k, off, before, after, want[:k+1], want[k+1:])
				}
			}
		}
	}
}

// TestPushReaderGivesBackBuffer checks that a push reader's read buffer
// goes back to the pool whenever it holds no unconsumed input, when the
// stream ends, and when the caller stops reading early (Release), so that
// a finished stream leaves no buffer for the garbage collector.
func TestPushReaderGivesBackBuffer(t *testing.T) {
	const events = "data: one\n\ndata: two\n\n"
	tests := []struct {
		name string
		read func(t *testing.T, r *Reader)
	}{
		{"between inputs", func(t *testing.T, r *Reader) {
			r.Push([]byte(events))
			for range 2 {
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.Next(); err != ErrNeedInput {
				t.Fatalf("Next: %v, want ErrNeedInput", err)
			}
		}},
		{"at the end", func(t *testing.T, r *Reader) {
			r.Push([]byte(events + "data: cut"))
			for range 2 {
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.Next(); err != ErrNeedInput {
				t.Fatalf("Next: %v, want ErrNeedInput", err)
			}
			r.CloseInput()
			if _, err := r.Next(); err != io.ErrUnexpectedEOF {
				t.Fatalf("Next: %v, want io.ErrUnexpectedEOF", err)
			}
		}},
		{"released early", func(t *testing.T, r *Reader) {
			r.Push([]byte(events))
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			off := r.Offset()
			r.Release()
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("Next after Release: %v, want io.EOF", err)
			}
			if r.Offset() != off {
				t.Errorf("Offset %d after Release, want %d", r.Offset(), off)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewPushReader(0)
			tc.read(t, r)
			if r.pooled != nil || r.buf != nil {
				t.Error("the read buffer was not given back")
			}
		})
	}
}
