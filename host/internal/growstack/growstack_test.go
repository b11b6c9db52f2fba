package growstack

import (
	"sync"
	"testing"
)

// Grow is called by every guest request at once: it must not race. This
// fails only under -race (as make test runs it); that Grow keeps its 16 KiB
// frame is BenchmarkGrow's to show, and the disassembly's (SUBQ $0x4008, SP).
func TestGrowConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				Grow()
			}
		}()
	}
	wg.Wait()
}

// BenchmarkGrow is the cost of growing a fresh goroutine's stack to Size
// with Grow, then making a call that needs it, against the call alone.
func BenchmarkGrow(b *testing.B) {
	for _, grow := range []bool{false, true} {
		name := "deep-call"
		if grow {
			name = "grow-then-deep-call"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				done := make(chan struct{})
				go func() {
					if grow {
						Grow()
					}
					deep(40)
					close(done)
				}()
				<-done
			}
		})
	}
}

// deep recurses n frames of about 300 bytes each.
//
//go:noinline
func deep(n int) byte {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[n%256]
}
