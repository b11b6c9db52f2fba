//go:build unix

package httpserve_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that asks for a streamed answer (progress) and never reads it
// must not hold the guest, and its concurrency slot, for ever: a write to
// the client that cannot proceed for WriteStall fails, the call ends as
// any call does, and the next caller gets the slot. Before, the guest sat
// in notify_progress, blocked on the full socket, past its own timeout
// (a deadline cannot interrupt a blocked write), until the client hung up.
func TestStalledReaderDoesNotHoldTheGuest(t *testing.T) {
	fixture.Slow(t, "about 40 s: floods a stalled reader")
	srv, _ := servertest.Load(t, false, server.Options{Name: "test", NotificationsPerCall: 10000}, plugin.RuntimeOptions{},
		servertest.Spec{Name: "notify_flood", Cfg: plugin.Config{Timeout: 10 * time.Second, Concurrency: 1}})
	// Small socket buffers (accepted sockets inherit the listener's), so
	// that the 10,000 progress notifications cannot all fit in them.
	small := func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096)
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}
	ln, err := (&net.ListenConfig{Control: small}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpserve.Serve(ctx, srv, ln, httpserve.Options{WriteStall: 500 * time.Millisecond}) }()
	t.Cleanup(func() { cancel(); <-served })
	base := "http://" + ln.Addr().String()
	good := mcptest.Connect(t, base+"/mcp", "")

	// The stalled client: its own session, a tiny receive buffer, a call
	// with a progress token whose answer it never reads.
	stalled := mcptest.Connect(t, base+"/mcp", "")
	d := net.Dialer{Control: small}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notify_flood","arguments":{},"_meta":{"progressToken":"p"}}}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n%s",
		strings.TrimPrefix(base, "http://"), stalled.ID(), stalled.InitializeResult().ProtocolVersion, len(body), body)

	// notify_flood runs one call at a time: the good client gets the slot
	// once the stalled call has ended.
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := good.CallTool(ctx, &mcp.CallToolParams{Name: "notify_flood", Arguments: map[string]any{}})
		cancel()
		if err == nil && !res.IsError {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the good client never got the plugin's slot back from the stalled one: %v %s", err, servertest.MustJSON(res))
		}
	}
}
