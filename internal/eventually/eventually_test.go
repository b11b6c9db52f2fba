package eventually

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			time.Sleep(2 * time.Millisecond)
			n.Add(1)
		}
	}()
	if !Within(10*time.Second, func() bool { return n.Load() == 3 }) {
		t.Fatal("a condition that comes true was not seen")
	}
	start := time.Now()
	if Within(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds was reported held")
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Fatal("gave up before the time was up")
	}
}
