//go:build linux || darwin

package sandboxfs

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// TestFIFORefused: opening a FIFO neither blocks nor succeeds.
func TestFIFORefused(t *testing.T) {
	fx := newFixture(t)
	must(t, syscall.Mkfifo(filepath.Join(fx.mnt, "fifo"), 0o644))
	fsys := openFS(t, fx.mnt, false)
	done := make(chan experimentalsys.Errno, 1)
	go func() {
		_, errno := fsys.OpenFile("fifo", experimentalsys.O_RDONLY, 0)
		done <- errno
	}()
	select {
	case errno := <-done:
		if errno != experimentalsys.EPERM {
			t.Errorf("open FIFO = %v, want EPERM", errno)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO blocked")
	}
}
