package conversations

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// maxAnswer is the handler's bound on an answer kept.
const maxAnswer = 64 << 20

// TestTurnRecords reads the answered response from a JSON body
// copied in by ReadFrom and from a stream's terminal event, passes both
// on untouched, and keeps nothing of an error, an event past its bound or
// a body past the response limit.
func TestTurnRecords(t *testing.T) {
	const answer = `{"id":"resp_1","status":"completed","output":[{"type":"message","id":"m1"}]}`
	for _, tc := range []struct {
		name     string
		ctype    string
		status   int
		body     string
		maxEvent int
		wantID   string
	}{
		{"json", "application/json", 200, answer, 0, "resp_1"},
		{"stream", "text/event-stream", 200, "event: response.created\ndata: {}\n\nevent: response.completed\ndata: {\"response\":" + answer + "}\n\n", 0, "resp_1"},
		{"error", "application/json", 400, `{"error":{"message":"no"}}`, 0, ""},
		{"incomplete json", "application/json", 200, `{"id":"resp_1","status":"in_progress","output":[]}`, 0, ""},
		{"event past the bound", "text/event-stream", 200, "event: response.completed\ndata: {\"response\":" + answer + strings.Repeat(" ", maxAnswer) + "}\n\n", 16, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			cr := getTurn(w, tc.maxEvent, maxAnswer)
			defer putTurn(cr)
			cr.SetStore(true)
			if cr.Unwrap() != w {
				t.Fatal("Unwrap is not the client's writer")
			}
			cr.Header().Set("Content-Type", tc.ctype)
			cr.WriteHeader(tc.status)
			if n, err := cr.ReadFrom(strings.NewReader(tc.body)); err != nil || n != int64(len(tc.body)) {
				t.Fatalf("ReadFrom = %d, %v", n, err)
			}
			if err := cr.FlushError(); err != nil {
				t.Fatal(err)
			}
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Errorf("the client got %d %q", w.Code, w.Body.String())
			}
			got, ok := cr.answer()
			if ok != (tc.wantID != "") || got.ID != tc.wantID {
				t.Errorf("answer %+v %v, want %q", got, ok, tc.wantID)
			}
		})
	}
	// A body written without a status is a 200; a body past the limit is
	// not kept.
	w := httptest.NewRecorder()
	cr := getTurn(w, 0, maxAnswer)
	defer putTurn(cr)
	cr.SetStore(true)
	_, _ = cr.Write([]byte(answer[:10]))
	_, _ = cr.Write(make([]byte, maxAnswer))
	if _, ok := cr.answer(); ok || w.Code != http.StatusOK {
		t.Errorf("a body past the limit: answer kept %v, status %d", ok, w.Code)
	}
	if _, ok := (&Turn{status: 200, keeps: true}).answer(); ok {
		t.Error("an empty answer was read")
	}

	// A turn not told to keep its answer passes it on and reads nothing.
	w = httptest.NewRecorder()
	quiet := getTurn(w, 0, maxAnswer)
	defer putTurn(quiet)
	quiet.Header().Set("Content-Type", "text/event-stream")
	quiet.WriteHeader(http.StatusOK)
	stream := "event: response.completed\ndata: {\"response\":" + answer + "}\n\n"
	_, _ = quiet.Write([]byte(stream))
	if _, ok := quiet.answer(); ok || quiet.events != nil || w.Body.String() != stream {
		t.Errorf("a turn that keeps nothing: answer read %v, events read %v, the client got %q", ok, quiet.events != nil, w.Body.String())
	}
}
