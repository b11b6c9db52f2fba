package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// TestRequestStateFromAnotherKey: a requestState issued by a replica with
// another key gets the same clean "invalid requestState" error as a forged
// one, over stateless HTTP (how replicas serve) and in memory.
func TestRequestStateFromAnotherKey(t *testing.T) {
	keyed := func(k byte) *server.Server {
		key := []byte(strings.Repeat(string(rune('a'+k)), 32))
		srv, _ := newServerWith(t, false, server.Options{StateKey: key}, plugin.RuntimeOptions{}, loadSpec{name: "sample"})
		return srv
	}
	a, b := keyed(0), keyed(1)
	opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}}
	stateless := func(srv *server.Server) *mcp.ClientSession {
		hs := httptest.NewServer(httpserve.Handler(srv, httpserve.Options{Stateless: true}))
		t.Cleanup(hs.Close)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, opts).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	t.Run("go-sdk client's own round trip, alternating replicas", func(t *testing.T) {
		ha, hb := httpserve.Handler(a, httpserve.Options{Stateless: true}), httpserve.Handler(b, httpserve.Options{Stateless: true})
		var n atomic.Int32
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%2 == 0 {
				hb.ServeHTTP(w, r)
			} else {
				ha.ServeHTTP(w, r)
			}
		}))
		defer hs.Close()
		auto := &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return forgedAnswer("m"), nil
		}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, auto).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for i := 0; i < 4; i++ {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), "invalid requestState") {
				t.Fatalf("call %d: result %+v, error %v; want an invalid requestState error", i, res, err)
			}
		}
	})
	for name, pair := range map[string][2]*mcp.ClientSession{
		"stateless HTTP": {stateless(a), stateless(b)},
		"in memory":      {connectVersion(t, a, opts, "2026-07-28"), connectVersion(t, b, opts, "2026-07-28")},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			first, err := pair[0].CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
			if err != nil || first.RequestState == "" {
				t.Fatalf("want an input-required result, got %+v %v", first, err)
			}
			answers := mcp.InputResponseMap{}
			for id := range first.InputRequests {
				answers[id] = forgedAnswer("m")
			}
			res, err := pair[1].CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{},
				InputResponses: answers, RequestState: first.RequestState})
			if err == nil || !strings.Contains(err.Error(), "invalid requestState") {
				t.Fatalf("a requestState from a replica with another key: result %+v, error %v; want an invalid requestState error", res, err)
			}
		})
	}
}

// TestRequestStateReplay pins the replay rule: a requestState is bound to
// its target, arguments, principal and expiry, not to one use. The same
// principal may send it again (a retry after a lost answer) until it
// expires and gets the same answer; single use would need state shared by
// every replica, and a replay gives its holder nothing a fresh call would
// not.
func TestRequestStateReplay(t *testing.T) {
	cs := modernClient(t)
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"a": 1}})
	if err != nil || first.RequestState == "" {
		t.Fatalf("want an input-required result, got %+v %v", first, err)
	}
	answers := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = forgedAnswer("m")
	}
	var got []string
	for i := 0; i < 2; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"a": 1},
			InputResponses: answers, RequestState: first.RequestState})
		if err != nil || res.IsError || res.NeedsInput() {
			t.Fatalf("use %d of the requestState: %+v %v", i+1, res, err)
		}
		got = append(got, servertest.MustJSON(res.StructuredContent))
	}
	if got[0] != got[1] {
		t.Fatalf("a replayed requestState answered differently: %s, then %s", got[0], got[1])
	}
}
