package isolate

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// execHandle is a worker this process started itself.
type execHandle struct {
	cmd  *exec.Cmd
	once sync.Once
	how  string
	done chan struct{}
}

// execDirect starts the worker with conn as its file descriptor 3, an
// empty environment and the server's stderr; it dies with the server.
func (w *Worker) execDirect(conn *os.File) (handle, error) {
	exe, err := w.exe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, w.opts.Args...)
	cmd.Env = w.opts.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stderr = newLineWriter(os.Stderr, "mcpwasm worker "+w.opts.Config.Name+": ")
	cmd.ExtraFiles = []*os.File{conn}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the worker: %w", err)
	}
	h := &execHandle{cmd: cmd, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		h.how = exitText(cmd.ProcessState, err)
		close(h.done)
	}()
	return h, nil
}

func (h *execHandle) pid() int { return h.cmd.Process.Pid }
func (h *execHandle) kill()    { _ = h.cmd.Process.Kill() }
func (h *execHandle) wait() string {
	<-h.done
	return h.how
}

// exitText says how a process ended.
func exitText(st *os.ProcessState, err error) string {
	if st == nil {
		return fmt.Sprint(err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}
