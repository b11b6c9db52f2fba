package listnotice

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A session gets tools/list_changed only after the initial load (Baseline)
// and only for a change recorded after what it listed: the initial load's
// changes, and a change go-sdk announces that State did not record, send
// nothing. Fake clock: go-sdk delays its notices by 10 ms.
func TestListChangedOnlyWhenUseful(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		var st State
		srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, &mcp.ServerOptions{
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}})
		srv.AddReceivingMiddleware(st.Note)
		srv.AddSendingMiddleware(st.Filter)
		var got atomic.Int32
		cl := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { got.Add(1) }})
		ct, stt := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, stt, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // a legacy session: no subscriptions/listen
		if err != nil {
			t.Fatal(err)
		}
		add := func(name string, record bool) int32 {
			if record {
				st.Changed(registry.KindTool)
			}
			srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
			time.Sleep(time.Second)
			synctest.Wait()
			return got.Load()
		}
		if n := add("loading", true); n != 0 {
			t.Fatalf("%d notices during the initial load", n)
		}
		st.Baseline()
		if n := add("unrecorded", false); n != 0 {
			t.Fatalf("%d notices for a change the session's list already held", n)
		}
		if n := add("later", true); n != 1 {
			t.Fatalf("%d notices after a change past the initial load, want 1", n)
		}
		if c := st.Changes(); c[registry.KindTool] != 2 {
			t.Fatalf("changes %v", c)
		}
		cs.Close()
		ss.Close()
		ss.Wait()
		synctest.Wait() // the session's forgetter ends with it
	})
}
