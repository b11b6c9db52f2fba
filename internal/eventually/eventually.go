// Package eventually waits, in tests, for a condition that another
// goroutine or process makes true: it polls, backing off from 1ms to 20ms,
// until the condition holds or the time is up. It is the one such loop
// (the tests had fifteen, each its own). A test that waits for a timer of
// its own making uses testing/synctest instead, where time is fake.
package eventually

import (
	"testing"
	"time"
)

// Within polls cond until it holds (true) or d has passed (false).
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
	}
}

// True fails the test with t.Fatalf unless cond holds within d; format and
// args say what did not happen. Call it from the test's goroutine.
func True(t testing.TB, d time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	if !Within(d, cond) {
		t.Fatalf(format, args...)
	}
}
