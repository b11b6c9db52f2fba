//go:build linux

package confine

import (
	"encoding/binary"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// call is one system call as the filter sees it.
type call struct {
	name string
	arch uint32 // 0: the running one
	args [6]uint64
	nr   int // used when name is ""
}

// run evaluates the filter on c without installing it: the program runs
// in x/net/bpf's interpreter. Seccomp loads words in native order and the
// interpreter in network order, so each word is stored big-endian where
// the kernel would put it.
func run(t *testing.T, vm *bpf.VM, info *arch.Info, c call) uint32 {
	t.Helper()
	nr := c.nr
	if c.name != "" {
		var ok bool
		if nr, ok = info.SyscallNames[c.name]; !ok {
			t.Fatalf("no syscall %s on %s", c.name, info.Name)
		}
	}
	a := c.arch
	if a == 0 {
		a = uint32(info.ID)
	}
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], uint32(nr))
	binary.BigEndian.PutUint32(data[4:], a)
	for i, v := range c.args {
		lo := argOffset(uint32(i))
		binary.BigEndian.PutUint32(data[lo:], uint32(v))
		binary.BigEndian.PutUint32(data[lo^4:], uint32(v>>32)) // the other half
	}
	out, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(out)
}

func TestFilterDecisions(t *testing.T) {
	info, err := arch.GetInfo("")
	if err != nil {
		t.Skip(err)
	}
	prog, err := Filter(Policy{})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	const cloneThread = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD
	sockFlags := uint64(unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK)
	cases := []struct {
		c    call
		want uint32
	}{
		// What a Go server does.
		{call{name: "read"}, allow},
		{call{name: "mmap"}, allow},
		{call{name: "mprotect"}, allow},
		{call{name: "futex"}, allow},
		{call{name: "openat"}, allow},
		{call{name: "clone", args: [6]uint64{cloneThread}}, allow},
		{call{name: "socket", args: [6]uint64{unix.AF_INET, unix.SOCK_STREAM | sockFlags, 0}}, allow},
		{call{name: "socket", args: [6]uint64{unix.AF_INET6, unix.SOCK_DGRAM | sockFlags, 0}}, allow},
		{call{name: "ioctl", args: [6]uint64{0, unix.TCGETS}}, allow},
		// What it never does.
		{call{name: "clone", args: [6]uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}}, retEPERM},
		{call{name: "clone", args: [6]uint64{cloneThread | unix.CLONE_NEWNET}}, retEPERM},
		{call{name: "clone3"}, retENOSYS},
		{call{name: "socket", args: [6]uint64{unix.AF_INET, unix.SOCK_STREAM | sockFlags, unix.IPPROTO_MPTCP}}, retEPERM},
		// The kernel reads the protocol as an int: high bits set by a
		// caller must not hide it.
		{call{name: "socket", args: [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 1<<32 | unix.IPPROTO_MPTCP}}, retEPERM},
		{call{name: "socket", args: [6]uint64{unix.AF_INET, unix.SOCK_RAW | sockFlags, unix.IPPROTO_TCP}}, retEPERM},
		{call{name: "socket", args: [6]uint64{unix.AF_PACKET, unix.SOCK_DGRAM, 0}}, retEPERM},
		{call{name: "socket", args: [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}}, retEPERM},
		{call{name: "socket", args: [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM | sockFlags, 0}}, retEPERM},
		{call{name: "ioctl", args: [6]uint64{0, unix.TIOCSTI}}, retEPERM},
		// Another ABI (int 0x80 on x86-64) is refused whatever the call.
		{call{name: "read", arch: 0x40000003 /* AUDIT_ARCH_I386 */}, retEPERM},
	}
	for _, name := range Denied {
		if _, ok := info.SyscallNames[name]; ok {
			cases = append(cases, struct {
				c    call
				want uint32
			}{call{name: name}, retEPERM})
		}
	}
	for _, tc := range cases {
		if got := run(t, vm, info, tc.c); got != tc.want {
			t.Errorf("%s %v (arch %#x): filter returns %#x, want %#x", tc.c.name, tc.c.args, tc.c.arch, got, tc.want)
		}
	}
	// The ones the issue names are in the list (a rule dropped from
	// Denied fails here).
	for _, name := range []string{"execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev",
		"mount", "umount2", "bpf", "keyctl", "add_key", "request_key", "perf_event_open", "unshare", "setns",
		"kexec_load", "init_module", "reboot", "swapon", "pivot_root", "chroot"} {
		if got := run(t, vm, info, call{name: name}); got != retEPERM {
			t.Errorf("%s: filter returns %#x, want EPERM", name, got)
		}
	}
}

func TestFilterUnixSocketsAllowed(t *testing.T) {
	info, err := arch.GetInfo("")
	if err != nil {
		t.Skip(err)
	}
	prog, err := Filter(Policy{UnixSockets: true})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, vm, info, call{name: "socket", args: [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}}); got != unix.SECCOMP_RET_ALLOW {
		t.Errorf("AF_UNIX with UnixSockets: %#x, want allow", got)
	}
}
