package limits

import (
	"context"
	"math"
	"strconv"
	"sync"
	"time"
)

// loaded are the sets of the loaded configuration, each with the client
// key names of its site, for the reports of every site (Loaded).
var loaded sync.Map // *Set -> []string

// Publish makes s, whose site's client keys are names, part of what Loaded
// reports until Withdraw.
func Publish(s *Set, names []string) { loaded.Store(s, names) }

// Withdraw removes s from what Loaded reports, when its configuration is
// unloaded. A nil s is ignored.
func Withdraw(s *Set) {
	if s != nil {
		loaded.Delete(s)
	}
}

// Loaded reports the use of every published set's caps by each of its
// site's client keys, read from the sets' stores.
func Loaded(ctx context.Context, now time.Time) ([]Report, error) {
	reports := []Report{}
	var firstErr error
	loaded.Range(func(k, v any) bool {
		rs, err := k.(*Set).Report(ctx, v.([]string), now)
		if err != nil {
			firstErr = err
			return false
		}
		reports = append(reports, rs...)
		return true
	})
	return reports, firstErr
}

// FormatAmount writes a counter's amount: whole numbers as integers,
// dollars with cents.
func FormatAmount(v float64) string {
	return string(AppendAmount(nil, v))
}

// AppendAmount appends a counter's amount as FormatAmount writes it.
func AppendAmount(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', 2, 64)
}
