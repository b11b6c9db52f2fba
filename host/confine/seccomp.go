//go:build linux

package confine

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Denied are the system calls the filter refuses with EPERM: what a
// compromised process would use to leave the sandbox or reach the kernel's
// less-travelled code, and what a Go server never calls. Names unknown on
// the running architecture are skipped.
var Denied = []string{
	// run another program; read or write another process
	"execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"process_madvise",
	// file systems and namespaces
	"mount", "umount2", "mount_setattr", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
	"fspick", "pivot_root", "chroot", "unshare", "setns", "name_to_handle_at", "open_by_handle_at",
	"fanotify_init", "quotactl", "quotactl_fd", "swapon", "swapoff", "acct",
	// kernel attack surface
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key", "lookup_dcookie", "uselib", "personality",
	// the machine itself
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
	"iopl", "ioperm", "syslog", "vhangup", "migrate_pages", "move_pages",
}

// enosys are refused with ENOSYS rather than EPERM: clone3 passes its
// flags in memory the filter cannot read (so namespaces could not be
// refused), and callers — glibc's pthread_create, Go's os/exec — fall back
// to clone, whose flags the filter reads, on ENOSYS only.
var enosys = []string{"clone3"}

const (
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	// namespaces clone may not create (as unshare may not).
	cloneNewNS = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
)

// argRule refuses syscall nr when its argument arg (low 32 bits: the
// kernel reads these as int) masked by mask equals value, or, with anyBit,
// when any bit of mask is set.
type argRule struct {
	name        string
	arg         uint32
	mask, value uint32
	anyBit      bool
	why         string
}

// argRules are the refusals that depend on an argument.
func argRules(p Policy) []argRule {
	rules := []argRule{
		{name: "socket", arg: 2, mask: 0xffffffff, value: unix.IPPROTO_MPTCP, why: "Multipath TCP: Landlock's TCP rules do not apply to it"},
		{name: "socket", arg: 0, mask: 0xffffffff, value: unix.AF_PACKET, why: "raw packets bypass the TCP rules"},
		{name: "socket", arg: 0, mask: 0xffffffff, value: unix.AF_NETLINK, why: "routing and firewall tables (as root)"},
		{name: "socket", arg: 1, mask: 0xf, value: unix.SOCK_RAW, why: "raw IP bypasses the TCP rules"},
		{name: "socket", arg: 1, mask: 0xf, value: unix.SOCK_PACKET, why: "raw packets bypass the TCP rules"},
		{name: "ioctl", arg: 1, mask: 0xffffffff, value: unix.TIOCSTI, why: "typing into the operator's terminal"},
		{name: "ioctl", arg: 1, mask: 0xffffffff, value: unix.TIOCLINUX, why: "typing into the console"},
		{name: "clone", arg: 0, mask: cloneNewNS, anyBit: true, why: "new namespaces, as unshare"},
	}
	if !p.UnixSockets {
		rules = append(rules, argRule{name: "socket", arg: 0, mask: 0xffffffff, value: unix.AF_UNIX,
			why: "local daemons' sockets (Landlock refuses them from ABI 9 only)"})
	}
	return rules
}

// seccompAvailable reports whether the kernel accepts seccomp filters.
func seccompAvailable() bool { return seccomp.Supported() }

// setNoNewPrivs sets no_new_privs on every thread.
func setNoNewPrivs() error {
	return ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// Filter assembles the seccomp program for p: a prelude that refuses every
// call made through another ABI (32-bit int 0x80 on x86-64, which would
// otherwise skip a deny list) and the argument rules, then go-seccomp-bpf's
// deny list, allowing the rest.
func Filter(p Policy) ([]bpf.Instruction, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range Denied {
		if len(p.Exec) > 0 && (n == "execve" || n == "execveat") {
			continue // Landlock allows p.Exec alone
		}
		if _, ok := info.SyscallNames[n]; ok {
			names = append(names, n)
		}
	}
	var slow []string
	for _, n := range enosys {
		if _, ok := info.SyscallNames[n]; ok {
			slow = append(slow, n)
		}
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
		{Names: names, Action: seccomp.ActionErrno},
	}}
	if len(slow) > 0 {
		policy.Syscalls = append(policy.Syscalls, seccomp.SyscallGroup{Names: slow, Action: seccomp.Action(retENOSYS)})
	}
	list, err := policy.Assemble()
	if err != nil {
		return nil, err
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retEPERM},
	}
	// Argument rules only where the argument registers are known to be
	// the plain ones (the two architectures mcpwasm ships for).
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		for _, r := range argRules(p) {
			nr, ok := info.SyscallNames[r.name]
			if !ok {
				continue
			}
			body := []bpf.Instruction{bpf.LoadAbsolute{Off: argOffset(r.arg), Size: 4}}
			if r.anyBit {
				body = append(body, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: r.mask, SkipFalse: 1})
			} else {
				body = append(body, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: r.mask},
					bpf.JumpIf{Cond: bpf.JumpEqual, Val: r.value, SkipFalse: 1})
			}
			body = append(body, bpf.RetConstant{Val: retEPERM})
			prog = append(prog, bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr) | uint32(info.SeccompMask), SkipFalse: uint8(len(body))})
			prog = append(prog, body...)
		}
	}
	return append(prog, list...), nil
}

// argOffset is where the low 32 bits of argument i lie in seccomp_data.
func argOffset(i uint32) uint32 {
	off := 16 + 8*i
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		off += 4 // big endian: the low half comes second
	}
	return off
}

// loadSeccomp installs the filter on every thread (TSYNC). The kernel
// requires no_new_privs on the calling thread, which must not change
// between the two calls.
func loadSeccomp(p Policy) error {
	insts, err := Filter(p)
	if err != nil {
		return err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	// unsafe: the kernel ABI takes the filter program by address.
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return errno
	}
	if r != 0 {
		return fmt.Errorf("thread %d could not be synchronized", r)
	}
	return nil
}
