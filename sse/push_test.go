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
