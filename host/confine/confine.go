// Package confine is mcpwasm's second wall: once the server has read what
// it needs, it confines its own process with the kernel's tools, so that a
// bug in the WebAssembly runtime (the first wall) does not give a plugin
// the whole host.
//
// Apply sets no_new_privs, then a Landlock ruleset (the files and folders
// the server may still read or write, and the TCP ports it may still bind
// and connect to), then a seccomp filter on every thread that refuses, with
// EPERM, the system calls a Go server never makes (exec, ptrace, mount,
// bpf, namespaces, kernel keyrings, module loading...). All of it is
// irreversible and inherited by every thread the process starts later.
//
// See docs/confinement.md for the security model.
package confine

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Mode says how much confinement a command insists on.
type Mode string

const (
	// Auto applies what the kernel supports and reports what it could not.
	Auto Mode = "auto"
	// Required refuses to run without the full set: no_new_privs,
	// Landlock for files and TCP (ABI 4 or later) and seccomp.
	Required Mode = "required"
	// Off applies nothing (for debugging).
	Off Mode = "off"
)

// ParseMode reads a --confine value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Required, Off:
		return m, nil
	}
	return "", fmt.Errorf("--confine %q: want auto, required or off", s)
}

// Policy is what the confined process may still do. Paths may be files or
// folders; a folder's rule covers everything below it, including files
// created there later. A path that does not exist is skipped.
type Policy struct {
	// ReadOnly paths may be read (and folders listed), never written.
	ReadOnly []string
	// ReadWrite paths may be read, written, created, renamed and removed.
	ReadWrite []string
	// CreateFiles are folders where regular files may be created and
	// written (an audit log reopened after rotation), never read,
	// removed, renamed or linked.
	CreateFiles []string
	// BindTCP are the only TCP ports the process may listen on.
	BindTCP []uint16
	// ConnectTCP are the only TCP ports the process may connect to.
	ConnectTCP []uint16
	// ConnectAnyTCP leaves TCP connect unrestricted; ConnectReason says
	// why (it is logged).
	ConnectAnyTCP bool
	ConnectReason string
	// Exec are the only files that may be executed (read and run). Empty:
	// nothing, and seccomp refuses execve outright. Set, execve and
	// execveat are left to Landlock, which allows these files alone: for
	// host/isolate's launcher, which starts workers from its own binary.
	Exec []string
	// UnixSockets allows creating AF_UNIX sockets (denied otherwise: on
	// Landlock ABI < 9 nothing else stops a connect to a local daemon's
	// socket, such as Docker's).
	UnixSockets bool
}

// Report says what Apply enforced.
type Report struct {
	NoNewPrivs  bool
	LandlockABI int  // the kernel's Landlock ABI version; 0 if none
	Filesystem  bool // Landlock rules on files
	Network     bool // Landlock rules on TCP bind and connect
	Scoped      bool // Landlock IPC scoping (abstract sockets, signals)
	Seccomp     bool
	// Missing names what the kernel could not enforce (Auto mode).
	Missing []string
}

// Full reports whether everything Required asks for was enforced.
func (r Report) Full() bool {
	return r.NoNewPrivs && r.Filesystem && r.Network && r.Seccomp
}

// String summarizes the report for a log line.
func (r Report) String() string {
	var on []string
	for _, x := range []struct {
		ok   bool
		name string
	}{{r.NoNewPrivs, "no_new_privs"}, {r.Filesystem, "landlock-fs"}, {r.Network, "landlock-tcp"},
		{r.Scoped, "landlock-scoped"}, {r.Seccomp, "seccomp"}} {
		if x.ok {
			on = append(on, x.name)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

// Apply confines the calling process, every thread of it, for good.
//
// In Required mode it first checks that the kernel offers the full set and
// returns an error, changing nothing, if not. In Auto mode it applies what
// the kernel offers and lists the rest in Report.Missing. In Off mode it
// does nothing. An error after the first step leaves the process partly
// confined: the caller should exit.
func Apply(p Policy, m Mode) (Report, error) {
	var r Report
	if m == Off {
		return r, nil
	}
	if m != Auto && m != Required {
		return r, fmt.Errorf("confine: unknown mode %q", m)
	}
	if runtime.GOOS != "linux" {
		if m == Required {
			return r, errors.New("confine: --confine=required, but confinement needs Linux (Landlock and seccomp)")
		}
		r.Missing = []string{"all of it (Landlock and seccomp are Linux only)"}
		return r, nil
	}
	p = p.withRuntime()
	abi := landlockABI()
	r.LandlockABI = abi
	missing, err := lacking(abi, seccompAvailable(), m)
	if err != nil {
		return r, err
	}
	r.Missing = missing
	warmUp(p)
	if err := setNoNewPrivs(); err != nil {
		return r, fmt.Errorf("confine: no_new_privs: %w", err)
	}
	r.NoNewPrivs = true
	if abi >= 1 {
		if err := restrictLandlock(p, abi); err != nil {
			return r, fmt.Errorf("confine: landlock: %w", err)
		}
		r.Filesystem, r.Network, r.Scoped = true, abi >= 4, abi >= 6
	}
	if seccompAvailable() {
		if err := loadSeccomp(p); err != nil {
			return r, fmt.Errorf("confine: seccomp: %w", err)
		}
		r.Seccomp = true
	}
	return r, nil
}

// Lacks lists what next needs that p does not allow: paths outside p's
// rules (or needing write where p allows only reading) and ports p does
// not allow. A hot reload that needs any of them needs a restart, since
// confinement cannot be widened.
func (p Policy) Lacks(next Policy) []string {
	var out []string
	for _, path := range next.ReadWrite {
		if !covered(p.ReadWrite, path) {
			out = append(out, "write "+path)
		}
	}
	for _, path := range next.CreateFiles {
		if !covered(p.ReadWrite, path) && !covered(p.CreateFiles, path) {
			out = append(out, "create files in "+path)
		}
	}
	for _, path := range next.ReadOnly {
		if !covered(p.ReadWrite, path) && !covered(p.ReadOnly, path) {
			out = append(out, "read "+path)
		}
	}
	for _, port := range next.BindTCP {
		if !slices.Contains(p.BindTCP, port) {
			out = append(out, fmt.Sprintf("bind tcp port %d", port))
		}
	}
	if !p.ConnectAnyTCP {
		if next.ConnectAnyTCP {
			out = append(out, "connect to any tcp port ("+next.ConnectReason+")")
		}
		for _, port := range next.ConnectTCP {
			if !slices.Contains(p.ConnectTCP, port) {
				out = append(out, fmt.Sprintf("connect tcp port %d", port))
			}
		}
	}
	if next.UnixSockets && !p.UnixSockets {
		out = append(out, "unix sockets")
	}
	return out
}

// Allows reports whether path is inside one of p's rules (for writing when
// write is true).
func (p Policy) Allows(path string, write bool) bool {
	if covered(p.ReadWrite, path) || (write && covered(p.CreateFiles, path)) {
		return true
	}
	return !write && covered(p.ReadOnly, path)
}

// covered reports whether path is one of roots or below one.
func covered(roots []string, path string) bool {
	path = clean(path)
	for _, r := range roots {
		r = clean(r)
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

// clean makes path absolute and resolves the symlinks of its longest part
// that exists (Landlock rules follow them too).
func clean(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	path = filepath.Clean(path)
	rest := ""
	for dir := path; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// warmUp makes the Go runtime read, while it still can, what it otherwise
// reads on first use and caches: the IP stack probe (a bind to port 0 on
// ::1) and the listen backlog, the local time zone, and the TLS roots when
// the process will connect anywhere.
func warmUp(p Policy) {
	_ = time.Local.String()
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	if p.ConnectAnyTCP || len(p.ConnectTCP) > 0 {
		_, _ = x509.SystemCertPool()
	}
}

// lacking lists what a kernel with Landlock ABI abi (0: none) and seccomp
// or not cannot enforce; in Required mode, an error if that includes any
// part of the full set (IPC scoping, ABI 6, is not part of it).
func lacking(abi int, seccomp bool, m Mode) ([]string, error) {
	var missing []string
	if abi < 1 {
		missing = append(missing, "Landlock (not enabled in this kernel: files and TCP stay open)")
	} else if abi < 4 {
		missing = append(missing, fmt.Sprintf("Landlock TCP rules (ABI %d; needs 4, Linux 6.7): bind and connect stay open", abi))
	}
	if !seccomp {
		missing = append(missing, "seccomp filters (not enabled in this kernel)")
	}
	if m == Required && len(missing) > 0 {
		return nil, fmt.Errorf("confine: --confine=required, but this kernel lacks %s", strings.Join(missing, "; "))
	}
	if abi >= 1 && abi < 6 {
		missing = append(missing, fmt.Sprintf("Landlock IPC scoping (ABI %d; needs 6)", abi))
	}
	return missing, nil
}
