//go:build isolateprobe

package isolate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ProbesBuilt reports whether this binary can run the escape probes: only
// a build with the isolateprobe tag, which the product binary never has.
const ProbesBuilt = true

// runProbes makes every attempt and reports the kernel's answers.
func runProbes(p []byte) []ProbeResult {
	var t ProbeTargets
	if err := json.Unmarshal(p, &t); err != nil {
		return []ProbeResult{{What: "probes", Errno: -1, Err: err.Error()}}
	}
	var out []ProbeResult
	add := func(what string, err error) {
		r := ProbeResult{What: what}
		if err != nil {
			r.Err = err.Error()
			r.Errno = -1
			var en syscall.Errno
			if errors.As(err, &en) {
				r.Errno = int(en)
			}
		}
		out = append(out, r)
	}
	for _, f := range t.Read {
		_, err := os.ReadFile(f)
		add("read "+f, err)
	}
	for _, d := range t.Write {
		name := filepath.Join(d, "escaped-"+strconv.Itoa(os.Getpid()))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
		}
		add("write "+name, err)
	}
	for _, port := range t.Connect {
		d := net.Dialer{Timeout: 2 * time.Second}
		d.SetMultipathTCP(false)
		c, err := d.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		add(fmt.Sprintf("connect 127.0.0.1:%d", port), err)
	}
	if t.GrowMiB > 0 {
		add(fmt.Sprintf("grow %d MiB", t.GrowMiB), growWritable(t.GrowMiB<<20))
	}
	if t.Exec != "" {
		add("exec "+t.Exec, exec.Command(t.Exec).Run())
	}
	if t.Ptrace > 0 {
		add(fmt.Sprintf("ptrace %d", t.Ptrace), unix.PtraceAttach(t.Ptrace))
	}
	if t.Signal > 0 {
		// Signal 0 checks the right to signal without sending one.
		add(fmt.Sprintf("signal %d", t.Signal), unix.Kill(t.Signal, 0))
	}
	return out
}

// growWritable reserves n bytes of address space and makes them writable,
// as host/internal/memalloc grows a linear memory, then gives them back.
func growWritable(n int) error {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return err
	}
	defer unix.Munmap(b)
	return unix.Mprotect(b, unix.PROT_READ|unix.PROT_WRITE)
}
