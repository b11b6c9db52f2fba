//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Access rights. Nothing anywhere may be executed, and no device, socket
// or fifo node made; ioctl on devices and connecting to pathname sockets
// stay refused where the kernel can refuse them (ABI 5 and 9).
const (
	roFile = ll.AccessFSReadFile
	roDir  = roFile | ll.AccessFSReadDir
	rwFile = roFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
	rwDir  = roDir | rwFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir |
		ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSRefer
	// createDir lets files be created in a folder and written, not read.
	createDir = ll.AccessFSMakeReg | ll.AccessFSWriteFile

	// handledFS is every file right go-landlock knows; the best-effort
	// config drops those the kernel does not.
	handledFS = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSReadDir |
		ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir |
		ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock |
		ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate | ll.AccessFSIoctlDev | ll.AccessFSResolveUnix
)

// runtimeReadOnly is what the Go runtime, its resolver, its TLS roots and
// its time zones read after start (found by running the confined server
// under strace; see docs/confinement.md). Missing ones are skipped.
var runtimeReadOnly = []string{
	// name resolution (re-read when they change)
	"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
	"/etc/services", "/etc/protocols",
	// TLS roots (crypto/x509's search list on Linux)
	"/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/usr/share/ca-certificates", "/usr/local/share/ca-certificates",
	"/etc/pki/tls", "/system/etc/security/cacerts",
	// time zones
	"/etc/localtime", "/usr/share/zoneinfo",
	// the metrics' process collector, the listen backlog
	"/proc/stat", "/proc/sys/net/core/somaxconn",
}

// RuntimePaths are the paths the Go runtime reads after start, which every
// confined process may read (beside the policy's own).
func RuntimePaths() []string { return append([]string(nil), runtimeReadOnly...) }

// withRuntime adds to p what the Go runtime needs: the paths above, the
// TLS roots named by SSL_CERT_FILE and SSL_CERT_DIR, the process's own
// /proc entry (metrics read it) and /dev/null.
func (p Policy) withRuntime() Policy {
	q := p
	q.ReadOnly = append(append([]string(nil), p.ReadOnly...), runtimeReadOnly...)
	for _, env := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "ZONEINFO"} {
		if v := os.Getenv(env); v != "" {
			q.ReadOnly = append(q.ReadOnly, filepath.SplitList(v)...)
		}
	}
	q.ReadOnly = append(q.ReadOnly, "/proc/"+strconv.Itoa(os.Getpid()))
	q.ReadWrite = append(append([]string(nil), p.ReadWrite...), "/dev/null")
	return q
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// restrictLandlock enforces p's files and ports on every thread.
func restrictLandlock(p Policy, abi int) error {
	rules, err := pathRules(p)
	if err != nil {
		return err
	}
	net := landlock.AccessNetSet(ll.AccessNetBindTCP | ll.AccessNetConnectTCP)
	if p.ConnectAnyTCP {
		net = ll.AccessNetBindTCP
	}
	for _, port := range p.BindTCP {
		rules = append(rules, landlock.BindTCP(port))
	}
	if !p.ConnectAnyTCP {
		for _, port := range p.ConnectTCP {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	cfg := landlock.Config{
		HandledAccessFS:  handledFS,
		HandledAccessNet: net,
		Scoped:           ll.ScopeAbstractUnixSocket | ll.ScopeSignal,
	}
	if p.UnixSockets {
		for i, r := range rules {
			if fr, ok := r.(landlock.FSRule); ok {
				rules[i] = fr.WithResolveUnix()
			}
		}
	}
	return cfg.BestEffort().Restrict(rules...)
}

// pathRules turns p's paths into rules with the rights for a file or a
// folder. Paths that cannot be reached (missing, or not even stat-able by
// this user) are skipped; a path listed both ways
// gets both (Landlock adds them up).
func pathRules(p Policy) ([]landlock.Rule, error) {
	var rules []landlock.Rule
	add := func(paths []string, file, dir landlock.AccessFSSet) error {
		for _, path := range paths {
			st, err := os.Stat(path)
			if err != nil {
				continue // missing, or not ours to reach anyway
			}
			rights := file
			if st.IsDir() {
				rights = dir
			}
			rules = append(rules, landlock.PathAccess(rights, path))
		}
		return nil
	}
	if err := add(p.ReadOnly, roFile, roDir); err != nil {
		return nil, err
	}
	if err := add(p.ReadWrite, rwFile, rwDir); err != nil {
		return nil, err
	}
	if err := add(p.Exec, roFile|ll.AccessFSExecute, roDir); err != nil {
		return nil, err
	}
	if err := add(p.CreateFiles, ll.AccessFSWriteFile, createDir); err != nil {
		return nil, err
	}
	return rules, nil
}
