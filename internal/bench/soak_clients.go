package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// goroutines reads the server's goroutine count from its debugging
// endpoint; -1 if it cannot.
func goroutines(addr string) int {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/debug/goroutines")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// freeAddr returns a free loopback address.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// soakCommand is the server command of a soak, with its debugging
// endpoint on.
func (e *env) soakCommand(cfgPath string, extra ...string) (*exec.Cmd, string, error) {
	debug, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	args := append([]string{"serve", "--config", cfgPath, "--cache-dir", e.cache, "--log-level", "warn"}, extra...)
	cmd := exec.Command(e.mcpwasm, args...)
	cmd.Env = append(os.Environ(), "MCPWASM_DEBUG_ADDR="+debug)
	return cmd, debug, nil
}

// soakStdio starts the server over stdio: the clients share its stdin, one
// reader routes its stdout to the tracker.
func (e *env) soakStdio(ctx context.Context, cfgPath string, tr *tracker) (*soakServer, error) {
	cmd, debug, err := e.soakCommand(cfgPath)
	if err != nil {
		return nil, err
	}
	stderr := newTail()
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var wmu sync.Mutex
	write := func(msg []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := in.Write(append(msg, '\n'))
		return err
	}
	initDone := make(chan []byte, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		r := bufio.NewReaderSize(out, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if bytes.Contains(line, []byte(`"id":"init"`)) {
					select {
					case initDone <- line:
					default:
					}
				}
				tr.deliver(line)
			}
			if err != nil {
				return
			}
		}
	}()
	stop := func() {
		in.Close()
		select {
		case <-readDone:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		cmd.Wait()
	}
	s := &soakServer{pid: cmd.Process.Pid, debug: debug, close: stop,
		send: func(_ context.Context, _ int, msg []byte) error { return write(msg) }}
	fail := func(err error) (*soakServer, error) {
		cmd.Process.Kill()
		stop()
		return nil, fmt.Errorf("%v (stderr: %s)", err, stderr)
	}
	if err := write([]byte(soakInit)); err != nil {
		return fail(err)
	}
	select {
	case <-initDone:
	case <-readDone:
		return fail(errors.New("the server closed stdout before answering initialize"))
	case <-time.After(60 * time.Second):
		return fail(errors.New("no answer to initialize in 60 s"))
	}
	if err := write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return fail(err)
	}
	return s, nil
}

const soakInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + httpVersion +
	`","capabilities":{},"clientInfo":{"name":"mcpwasm-soak","version":"1"}}}`

// soakHTTP starts the server over Streamable HTTP and opens one session
// per client; each answer, JSON or SSE, goes to the tracker.
func (e *env) soakHTTP(ctx context.Context, cfgPath string, tr *tracker, clients int) (*soakServer, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd, debug, err := e.soakCommand(cfgPath, "--http", addr)
	if err != nil {
		return nil, err
	}
	p := &httpProc{cmd: cmd, stderr: newTail(), done: make(chan struct{}), url: "http://" + addr + "/mcp"}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(p.done) }()
	for deadline := time.Now().Add(60 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("mcpwasm exited: %s", p.stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("mcpwasm does not listen on %s after 60 s: %s", addr, p.stderr)
		}
	}
	hc := &http.Client{Timeout: soakCallWait, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * clients, IdleConnTimeout: time.Minute}}
	post := func(ctx context.Context, session string, msg []byte, deliver func([]byte)) (string, error) {
		req, err := http.NewRequestWithContext(ctx, "POST", p.url, bytes.NewReader(msg))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", httpVersion)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusAccepted {
			return resp.Header.Get("Mcp-Session-Id"), nil
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
			return "", fmt.Errorf("HTTP %s: %s", resp.Status, bytes.TrimSpace(b))
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			err = readSSE(resp.Body, deliver)
		} else {
			var b []byte
			if b, err = io.ReadAll(resp.Body); err == nil {
				deliver(b)
			}
		}
		return resp.Header.Get("Mcp-Session-Id"), err
	}
	sessions := make([]string, clients)
	for c := range clients {
		var got []byte
		id, err := post(ctx, "", []byte(soakInit), func(b []byte) { got = b })
		if err == nil && (id == "" || !bytes.Contains(got, []byte(`"id":"init"`))) {
			err = fmt.Errorf("initialize answered without a session or result: %.300s", got)
		}
		if err == nil {
			_, err = post(ctx, id, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), tr.deliver)
		}
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("session %d: %v (stderr: %s)", c, err, p.stderr)
		}
		sessions[c] = id
	}
	return &soakServer{pid: cmd.Process.Pid, debug: debug, close: p.stop, sendErrorsCount: true,
		send: func(ctx context.Context, c int, msg []byte) error {
			_, err := post(ctx, sessions[c], msg, tr.deliver)
			return err
		}}, nil
}

// readSSE hands the data of every event of an SSE stream to deliver.
func readSSE(r io.Reader, deliver func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0:
			deliver(data)
			data = nil
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
		if err != nil {
			if len(data) > 0 {
				deliver(data)
			}
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
