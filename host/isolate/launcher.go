package isolate

import (
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"github.com/mcpwasm/mcpwasm/host/confine"
	"golang.org/x/sys/unix"
)

// LauncherSubcommand is the hidden mcpwasm subcommand that runs a
// Launcher's process.
const LauncherSubcommand = "__isolate-launcher"

// Launcher starts workers for a server that has confined itself: seccomp
// then refuses the server every exec. It is a process of the same binary,
// started before the server confines itself, and confined as the server
// is (the server's own policy) except that it may execute its own binary
// (and the dynamic loader). A worker inherits that wall and adds its own.
// Workers are the launcher's children: it alone may signal them (Landlock
// scoping keeps the server and the workers from signalling each other).
type Launcher struct {
	conn *net.UnixConn
	cmd  *exec.Cmd
	wmu  sync.Mutex // one message at a time

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan launchMsg
	procs   map[int]*launchedHandle
	err     error // why the launcher is gone
}

// launchMsg is every message between a server and its launcher.
type launchMsg struct {
	Op     string         `json:"op"` // setup, spawn, kill; spawned, exited
	ID     uint64         `json:"id,omitempty"`
	Pid    int            `json:"pid,omitempty"`
	Error  string         `json:"error,omitempty"`
	How    string         `json:"how,omitempty"`
	Policy confine.Policy `json:"policy"`
	Mode   confine.Mode   `json:"mode,omitempty"`
	Name   string         `json:"name,omitempty"` // the worker's plugin, for its log lines
}

// StartLauncher starts a launcher confined to policy (the server's own)
// under mode. Call it before the server confines itself.
func StartLauncher(exe string, policy confine.Policy, mode confine.Mode) (*Launcher, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	c, theirs, err := socketPair(unix.SOCK_SEQPACKET, "launcher")
	if err != nil {
		return nil, err
	}
	defer theirs.Close()
	cmd := exec.Command(exe, LauncherSubcommand)
	cmd.Env = []string{}
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		c.Close()
		return nil, fmt.Errorf("starting the launcher: %w", err)
	}
	l := &Launcher{conn: c.(*net.UnixConn), cmd: cmd, waiting: map[uint64]chan launchMsg{}, procs: map[int]*launchedHandle{}}
	if err := l.send(launchMsg{Op: "setup", Policy: policy, Mode: mode}, nil); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	go l.read()
	return l, nil
}

// socketPair makes a connected pair of Unix sockets of type typ
// (SOCK_STREAM, SOCK_SEQPACKET), both close-on-exec: this process's end
// as a net.Conn and the other end as a file to hand to a child, which
// the caller closes once the child has it. name names the pair in errors
// and the files.
func socketPair(typ int, name string) (net.Conn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s socketpair: %w", name, err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), name), os.NewFile(uintptr(fds[1]), name+"-end")
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, err
	}
	return c, theirs, nil
}

func (l *Launcher) send(m launchMsg, fd *os.File) error {
	b, _ := json.Marshal(m)
	var oob []byte
	if fd != nil {
		oob = unix.UnixRights(int(fd.Fd()))
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, _, err := l.conn.WriteMsgUnix(b, oob, nil)
	return err
}

// read takes the launcher's answers and exit notices.
func (l *Launcher) read() {
	buf := make([]byte, 64<<10)
	for {
		n, _, _, _, err := l.conn.ReadMsgUnix(buf, nil)
		var m launchMsg
		if err == nil && n == 0 {
			err = errors.New("closed")
		}
		if err == nil {
			err = json.Unmarshal(buf[:n], &m)
		}
		if err != nil {
			l.fail(fmt.Errorf("the worker launcher is gone: %v", err))
			return
		}
		l.mu.Lock()
		switch m.Op {
		case "spawned":
			if ch := l.waiting[m.ID]; ch != nil {
				delete(l.waiting, m.ID)
				ch <- m
			}
		case "exited":
			if h := l.procs[m.Pid]; h != nil {
				delete(l.procs, m.Pid)
				h.end(m.How)
			}
		}
		l.mu.Unlock()
	}
}

// fail ends every worker's handle: without the launcher nobody waits for
// them (they die with it, Pdeathsig).
func (l *Launcher) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = err
	for id, ch := range l.waiting {
		ch <- launchMsg{Error: err.Error()}
		delete(l.waiting, id)
	}
	for pid, h := range l.procs {
		h.end(err.Error())
		delete(l.procs, pid)
	}
}

// spawn has the launcher start a worker on conn.
func (l *Launcher) spawn(conn *os.File, name string) (handle, error) {
	ch := make(chan launchMsg, 1)
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return nil, l.err
	}
	l.next++
	id := l.next
	l.waiting[id] = ch
	l.mu.Unlock()
	if err := l.send(launchMsg{Op: "spawn", ID: id, Name: name}, conn); err != nil {
		return nil, err
	}
	m := <-ch
	if m.Error != "" {
		return nil, errors.New(m.Error)
	}
	h := &launchedHandle{l: l, p: m.Pid, done: make(chan struct{})}
	l.mu.Lock()
	l.procs[m.Pid] = h
	l.mu.Unlock()
	return h, nil
}

// Close stops the launcher and, with it, every worker it started.
func (l *Launcher) Close() error {
	l.conn.Close()
	l.cmd.Process.Kill()
	l.cmd.Wait()
	return nil
}

// Pid is the launcher's process id.
func (l *Launcher) Pid() int { return l.cmd.Process.Pid }

type launchedHandle struct {
	l    *Launcher
	p    int
	once sync.Once
	how  string
	done chan struct{}
}

func (h *launchedHandle) pid() int { return h.p }
func (h *launchedHandle) kill()    { _ = h.l.send(launchMsg{Op: "kill", Pid: h.p}, nil) }
func (h *launchedHandle) wait() string {
	<-h.done
	return h.how
}
func (h *launchedHandle) end(how string) {
	h.once.Do(func() { h.how = how; close(h.done) })
}

// LauncherMain runs a launcher on the socket inherited as file
// descriptor 3 and returns the process's exit code.
func LauncherMain() int {
	f := os.NewFile(3, "server")
	c, err := net.FileConn(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpwasm launcher: no socket on file descriptor 3 (this subcommand is started by mcpwasm serve)")
		return 2
	}
	f.Close()
	if err := serveLauncher(c.(*net.UnixConn)); err != nil {
		fmt.Fprintln(os.Stderr, "mcpwasm launcher:", err)
		return 1
	}
	return 0
}

func serveLauncher(conn *net.UnixConn) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	var wmu sync.Mutex
	reply := func(m launchMsg) {
		b, _ := json.Marshal(m)
		wmu.Lock()
		conn.Write(b)
		wmu.Unlock()
	}
	// Landlock gives each thread its own domain (go-landlock restricts
	// them one by one), and a scoped domain may signal only domains below
	// its own: the thread that starts a worker must be the one that kills
	// it. One locked thread does both.
	ops := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the process
		for op := range ops {
			op()
		}
	}()
	onThread := func(f func()) {
		done := make(chan struct{})
		ops <- func() { f(); close(done) }
		<-done
	}
	buf, oob := make([]byte, 64<<10), make([]byte, unix.CmsgSpace(4*4))
	children := map[int]*os.Process{}
	var mu sync.Mutex
	defer func() { // the server is gone: so are its workers
		mu.Lock()
		for _, p := range children {
			onThread(func() { p.Kill() })
		}
		mu.Unlock()
	}()
	for {
		n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			return nil
		}
		var m launchMsg
		if err := json.Unmarshal(buf[:n], &m); err != nil {
			return fmt.Errorf("unreadable message: %w", err)
		}
		fd := -1
		if oobn > 0 {
			if scms, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(scms) == 1 {
				if fds, err := unix.ParseUnixRights(&scms[0]); err == nil && len(fds) == 1 {
					fd = fds[0]
				}
			}
		}
		switch m.Op {
		case "setup":
			if err := confineLauncher(m.Policy, m.Mode, exe); err != nil {
				return err
			}
		case "spawn":
			if fd < 0 {
				reply(launchMsg{Op: "spawned", ID: m.ID, Error: "spawn without a socket"})
				continue
			}
			wconn := os.NewFile(uintptr(fd), "worker")
			cmd := exec.Command(exe, Subcommand)
			cmd.Env = []string{}
			cmd.Stderr = newLineWriter(os.Stderr, "mcpwasm worker "+m.Name+": ")
			cmd.ExtraFiles = []*os.File{wconn}
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			var err error
			onThread(func() { err = cmd.Start() })
			wconn.Close()
			if err != nil {
				reply(launchMsg{Op: "spawned", ID: m.ID, Error: "starting the worker: " + err.Error()})
				continue
			}
			mu.Lock()
			children[cmd.Process.Pid] = cmd.Process
			mu.Unlock()
			reply(launchMsg{Op: "spawned", ID: m.ID, Pid: cmd.Process.Pid})
			go func() {
				err := cmd.Wait()
				mu.Lock()
				delete(children, cmd.Process.Pid)
				mu.Unlock()
				reply(launchMsg{Op: "exited", Pid: cmd.Process.Pid, How: exitText(cmd.ProcessState, err)})
			}()
		case "kill":
			mu.Lock()
			p := children[m.Pid] // its own workers only
			mu.Unlock()
			if p != nil {
				onThread(func() {
					if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
						fmt.Fprintf(os.Stderr, "mcpwasm launcher: killing worker %d: %v\n", m.Pid, err)
					}
				})
			}
		default:
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}
}

// confineLauncher confines the launcher as the server is, plus the right
// to execute its own binary and its dynamic loader, and to read the
// system's shared libraries and /proc.
func confineLauncher(p confine.Policy, mode confine.Mode, exe string) error {
	if mode == confine.Off {
		return nil
	}
	p.Exec = append(p.Exec, exe)
	if f, err := elf.Open(exe); err == nil {
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				b := make([]byte, prog.Filesz)
				if _, err := prog.ReadAt(b, 0); err == nil {
					p.Exec = append(p.Exec, string(b[:len(b)-1]))
				}
			}
		}
		f.Close()
	}
	// A worker confines its threads through /proc/self/task: its /proc
	// entry does not exist yet, so the launcher allows /proc (Landlock
	// keeps another domain's sensitive entries, those ptrace guards,
	// closed) and each worker narrows it to its own.
	p.ReadOnly = append(p.ReadOnly, "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/etc/ld.so.cache", "/proc")
	_, err := confine.Apply(p, mode)
	return err
}
