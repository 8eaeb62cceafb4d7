package caddymodule

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestInteractionInputSteps checks how a request's input becomes the
// steps that are stored and continued: a string or content objects are a
// user_input step, steps are themselves.
func TestInteractionInputSteps(t *testing.T) {
	for _, tt := range []struct{ input, want string }{
		{`"Hi"`, `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]}]`},
		{`{"type":"text","text":"Hi"}`, `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]}]`},
		{`{"type":"user_input","content":"Hi"}`, `[{"type":"user_input","content":"Hi"}]`},
		{`[{"type":"text","text":"a"},{"type":"image","uri":"u"},{"type":"function_result","call_id":"c","result":"r"},{"type":"text","text":"b"}]`,
			`[{"type":"user_input","content":[{"type":"text","text":"a"},{"type":"image","uri":"u"}]},{"type":"function_result","call_id":"c","result":"r"},` +
				`{"type":"user_input","content":[{"type":"text","text":"b"}]}]`},
		{`7`, `[]`},
	} {
		n := 0
		got := string(append(appendInputSteps([]byte{'['}, &n, gjson.Parse(tt.input)), ']'))
		if got != tt.want {
			t.Errorf("input %s\n got %s\nwant %s", tt.input, got, tt.want)
		}
	}
}

// TestStoredInteractionPath checks which paths name one interaction.
func TestStoredInteractionPath(t *testing.T) {
	for path, want := range map[string]string{
		"/v1beta/interactions/v1_abc":      "v1_abc",
		"/v1/interactions/msg_01X-y.z":     "msg_01X-y.z",
		"/v1alpha/interactions/a":          "a",
		"/v1beta/interactions":             "",
		"/v1beta/interactions/a/cancel":    "",
		"/v2/interactions/a":               "",
		"/v1beta/interactions/../../admin": "",
		"/v1beta/interactions/..":          "",
		"/v1beta/interactions/.hidden":     "",
	} {
		got := ""
		if m := storedInteractionPath.FindStringSubmatch(path); m != nil {
			got = m[2]
		}
		if got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}

// TestShortDuration checks the durations errors name.
func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Minute: "1h30m", 30 * time.Minute: "30m", 45 * time.Second: "45s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
