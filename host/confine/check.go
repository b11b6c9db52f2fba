//go:build linux

package confine

import (
	"context"
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

// childEnv marks a process started by PrepareCheck as the target of the
// ptrace attempt; ChildMain makes it wait.
const childEnv = "MCPWASM_CONFINE_PTRACE_TARGET"

// ChildMain returns at once, unless this process is the ptrace target of
// a Check: then it waits for its standard input to close and exits. Call
// it first thing in main.
func ChildMain() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	var b [1]byte
	for {
		if _, err := os.Stdin.Read(b[:]); err != nil {
			os.Exit(0)
		}
	}
}

// Check is what a compromised process would try, prepared before the
// process is confined (afterwards it could no longer start a child or
// find out what is readable) and run after.
type Check struct {
	// Report is what Apply enforced: Run expects each attempt to be
	// refused by the wall that should refuse it.
	Report Report

	outside    string           // a file readable now, outside every rule
	writeDir   string           // a plugin folder, to write into
	dacRefuses bool             // writeDir is not writable by this user anyway
	exe        string           // a program that runs now
	child      *exec.Cmd        // a live child, to ptrace
	stdin      *os.File         // the child's standard input; closing it ends the child
	ln         *net.TCPListener // a port that accepts now and that no rule allows
}

// Attempt is the outcome of one try.
type Attempt struct {
	What    string // e.g. "exec /bin/true"
	Refused bool   // refused by the expected wall
	Detail  string
}

// String is the attempt's report line.
func (a Attempt) String() string {
	if a.Refused {
		return "refused  " + a.What + ": " + a.Detail
	}
	return "FAILED   " + a.What + ": " + a.Detail
}

// PrepareCheck finds, before confinement, a file p does not allow that can
// be read now, a program that runs now, starts a child to ptrace and opens
// a TCP port p does not allow. writeDir is the plugin folder to try to
// write into ("" skips that attempt).
func PrepareCheck(p Policy, writeDir string) (*Check, error) {
	full := p.withRuntime()
	c := &Check{writeDir: writeDir}
	exe, _ := os.Executable()
	home, _ := os.UserHomeDir()
	for _, f := range []string{"/etc/shadow", "/etc/passwd", "/etc/hostname", "/etc/os-release", exe,
		filepath.Join(home, ".profile")} {
		if f == "" || full.Allows(f, false) {
			continue
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if fh, err := os.Open(f); err == nil {
			fh.Close()
			c.outside = f
			break
		}
	}
	for _, prog := range []string{"/bin/true", "/usr/bin/true"} {
		if st, err := os.Stat(prog); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			c.exe = prog
			break
		}
	}
	if c.exe == "" {
		c.exe = exe
	}
	c.dacRefuses = writeDir != "" && unix.Access(writeDir, unix.W_OK) != nil
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.child = exec.Command(exe)
	c.child.Env = append(os.Environ(), childEnv+"=1")
	c.child.Stdin = r
	if err := c.child.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("ptrace target: %w", err)
	}
	r.Close()
	c.stdin = w
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	for range 5 {
		ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
		if err != nil {
			c.Close()
			return nil, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if !p.ConnectAnyTCP && !contains(p.ConnectTCP, uint16(port)) {
			c.ln = ln.(*net.TCPListener)
			break
		}
		ln.Close()
	}
	if c.ln == nil {
		c.Close()
		return nil, errors.New("no free TCP port outside the connect rules")
	}
	go func() { // accept what an unconfined connect would reach
		for {
			conn, err := c.ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	return c, nil
}

func contains(ports []uint16, port uint16) bool {
	for _, p := range ports {
		if p == port {
			return true
		}
	}
	return false
}

// Close ends the child and closes the port.
func (c *Check) Close() {
	if c.stdin != nil {
		c.stdin.Close()
		c.stdin = nil
	}
	if c.child != nil && c.child.Process != nil {
		done := make(chan struct{})
		go func() { c.child.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			c.child.Process.Kill()
			<-done
		}
		c.child = nil
	}
	if c.ln != nil {
		c.ln.Close()
	}
}

// Run makes every attempt, in the confined process, and says for each
// whether the wall that should refuse it did: EACCES from Landlock for
// files and TCP, EPERM from seccomp for exec, ptrace and Multipath TCP.
// A refusal by another wall than the expected one counts as a failure:
// it means a rule is missing.
func (c *Check) Run() []Attempt {
	r := c.Report
	var out []Attempt
	landlockOr := func(ok bool) syscall.Errno {
		if ok {
			return syscall.EACCES
		}
		return 0
	}
	// Read a file outside every rule.
	if c.outside != "" {
		_, err := os.ReadFile(c.outside)
		out = append(out, judge("read "+c.outside, err, landlockOr(r.Filesystem), "Landlock"))
	} else {
		out = append(out, Attempt{What: "read a file outside the rules", Detail: "no readable file outside the rules found to try"})
	}
	// Write into the plugin folder.
	if c.dacRefuses {
		out = append(out, Attempt{What: "write into " + c.writeDir, Refused: true,
			Detail: "file permissions refuse it even unconfined (Landlock not exercised)"})
	} else if c.writeDir != "" {
		name := filepath.Join(c.writeDir, ".mcpwasm-confine-check-"+strconv.Itoa(os.Getpid()))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			os.Remove(name)
		}
		out = append(out, judge("write into "+c.writeDir, err, landlockOr(r.Filesystem), "Landlock"))
	}
	// Run a program.
	execWall, execWant := "Landlock", landlockOr(r.Filesystem)
	if r.Seccomp {
		execWall, execWant = "seccomp", syscall.EPERM
	}
	err := exec.Command(c.exe).Run()
	out = append(out, judge("exec "+c.exe, err, execWant, execWall))
	// Trace a child.
	ptraceWall, ptraceWant := "Landlock", syscall.Errno(0)
	if r.Filesystem {
		ptraceWant = syscall.EPERM
	}
	if r.Seccomp {
		ptraceWall, ptraceWant = "seccomp", syscall.EPERM
	}
	pid := c.child.Process.Pid
	err = unix.PtraceAttach(pid)
	if err == nil {
		unix.PtraceDetach(pid)
	}
	out = append(out, judge(fmt.Sprintf("ptrace child %d", pid), err, ptraceWant, ptraceWall))
	// Connect to a port nothing needs.
	port := c.ln.Addr().(*net.TCPAddr).Port
	var d net.Dialer
	d.SetMultipathTCP(false)
	d.Timeout = 2 * time.Second
	conn, err := d.Dial("tcp4", c.ln.Addr().String())
	if err == nil {
		conn.Close()
	}
	out = append(out, judge(fmt.Sprintf("connect tcp 127.0.0.1:%d", port), err, landlockOr(r.Network), "Landlock"))
	// The same over Multipath TCP, which Landlock does not see.
	out = append(out, judge(fmt.Sprintf("connect mptcp 127.0.0.1:%d", port), mptcpConnect(port), seccompOr(r.Seccomp), "seccomp"))
	return out
}

func seccompOr(ok bool) syscall.Errno {
	if ok {
		return syscall.EPERM
	}
	return 0
}

// mptcpConnect connects a Multipath TCP socket to 127.0.0.1:port.
func mptcpConnect(port int) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_MPTCP)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	return nil
}

// judge turns an attempt's error into its outcome: refused only with the
// errno of the wall that should refuse it (want; 0 when no wall is
// enforced, so nothing can count as refused).
func judge(what string, err error, want syscall.Errno, wall string) Attempt {
	a := Attempt{What: what}
	switch {
	case err == nil:
		a.Detail = "ALLOWED: it succeeded"
	case want == 0:
		a.Detail = fmt.Sprintf("%v, but no wall that should refuse it is enforced on this kernel", err)
	case errors.Is(err, want):
		a.Refused = true
		a.Detail = fmt.Sprintf("%v (%s)", err, wall)
	case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
		a.Detail = fmt.Sprintf("%v: refused, but not by %s, whose rule for it is missing", err, wall)
	default:
		a.Detail = fmt.Sprintf("%v: failed, but not refused by %s", err, wall)
	}
	return a
}
