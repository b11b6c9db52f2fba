package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport/stdiotest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio framing is package transport's, tested at its boundary; what is
// tested here is the server's use of it.

// TestStdioGuestSeesID: over stdio the guest's context.id (ABI.md §2) is the
// request's id as the client sent it, for ids go-sdk keeps and for those the
// transport maps (the stdio transport records it in the request's extra
// header, which nothing else on the stdio path sets). It fails when the
// header is recorded under a key the handler does not read.
func TestStdioGuestSeesID(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo"})
	p := stdiotest.Start(t, srv.ServeStdio, server.StdioOptions{})
	p.Initialize("2025-06-18")
	for _, id := range []string{`7`, `"plain"`, `1.5`, `"\u0041"`, `123456789012345678901234567890`} {
		p.Send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`)
		r, line := p.Next()
		if string(r.ID) != id || r.Error != nil {
			t.Fatalf("id %s: got %s", id, line)
		}
		var res struct {
			StructuredContent struct {
				Context struct {
					ID json.RawMessage `json:"id"`
				} `json:"context"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("id %s: %v: %s", id, err, line)
		}
		var want, got any
		json.Unmarshal([]byte(id), &want)
		json.Unmarshal(res.StructuredContent.Context.ID, &got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("id %s: the guest saw context.id %s", id, res.StructuredContent.Context.ID)
		}
	}
}

// BenchmarkStdioRatio splits what the stdio path costs, in process, over
// OS pipes (what a desktop host gives the server) and one go-sdk client per
// server: per iteration one call each, interleaved, to
//
//   - plain: a plain go-sdk server's native echo on go-sdk's own stream
//     transport (mcp.IOTransport), the baseline;
//   - sdkio: this server's native echo on that same go-sdk transport
//     (Connect), so native-sdkio / plain is what the middleware costs;
//   - native: this server's native echo on ServeStdio, so native / sdkio is
//     what the checked stdio framing costs;
//   - wasm: the Wasm echo on ServeStdio, so wasm / native is the sandbox.
//
// It reports the median of each and the ratios to plain.
func BenchmarkStdioRatio(b *testing.B) {
	srv, _ := newServer(b, false, loadSpec{name: "echo"})
	srv.AddNativeEcho()
	plainSrv := mcp.NewServer(&mcp.Implementation{Name: "plain"}, nil)
	plainSrv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		b.Run(era, func(b *testing.B) {
			plain := pipeClient(b, era, func(ctx context.Context, t mcp.Transport) { plainSrv.Run(ctx, t) })
			sdkio := pipeClient(b, era, func(ctx context.Context, t mcp.Transport) {
				if ss, err := srv.Connect(ctx, t); err == nil {
					ss.Wait()
				}
			})
			stdio := stdioClient(b, srv, era)
			type row struct {
				name string
				cs   *mcp.ClientSession
				tool string
				lat  []time.Duration
			}
			rows := []*row{{"plain", plain, "echo", nil}, {"sdkio", sdkio, server.NativeEchoTool, nil},
				{"native", stdio, server.NativeEchoTool, nil}, {"wasm", stdio, "echo", nil}}
			ctx := context.Background()
			for _, r := range rows { // warm up
				for range 50 {
					benchOne(b, ctx, r.cs, r.tool)
				}
			}
			i := 0
			for b.Loop() {
				for j := range rows { // rotate who goes first
					r := rows[(i+j)%len(rows)]
					start := time.Now()
					benchOne(b, ctx, r.cs, r.tool)
					r.lat = append(r.lat, time.Since(start))
				}
				i++
			}
			base := median(rows[0].lat)
			for _, r := range rows {
				m := median(r.lat)
				b.ReportMetric(float64(m.Microseconds()), r.name+"-µs")
				if r != rows[0] {
					b.ReportMetric(float64(m)/float64(base), r.name+"/plain")
				}
			}
		})
	}
}

func benchOne(b *testing.B, ctx context.Context, cs *mcp.ClientSession, tool string) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: benchArgs})
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %v", tool, err, res)
	}
}

// osPipes returns the two ends of a stdio link over OS pipes: the
// server's in and out, the client's in and out.
func osPipes(b *testing.B) (srvIn, srvOut, cliIn, cliOut *os.File) {
	b.Helper()
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return r1, w2, r2, w1
}

// pipeClient serves a go-sdk IOTransport over OS pipes with serve and
// connects a client to it.
func pipeClient(b *testing.B, era string, serve func(context.Context, mcp.Transport)) *mcp.ClientSession {
	b.Helper()
	srvIn, srvOut, cliIn, cliOut := osPipes(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); serve(ctx, &mcp.IOTransport{Reader: srvIn, Writer: srvOut}) }()
	return connectPipe(b, era, cliIn, cliOut, func() { cancel(); srvIn.Close(); srvOut.Close(); <-done })
}

// stdioClient runs srv's ServeStdio over OS pipes and connects a client.
func stdioClient(b *testing.B, srv *server.Server, era string) *mcp.ClientSession {
	b.Helper()
	srvIn, srvOut, cliIn, cliOut := osPipes(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.ServeStdio(ctx, server.StdioOptions{In: srvIn, Out: srvOut}) }()
	return connectPipe(b, era, cliIn, cliOut, func() { cancel(); srvIn.Close(); srvOut.Close(); <-done })
}

func connectPipe(b *testing.B, era string, in, out *os.File, stop func()) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: in, Writer: out}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); stop() })
	return cs
}

// TestEchoArgsFixture: echo_args, the Wasm side of the stdio figure's
// like-for-like row, answers what the plain go-sdk server answers (its
// arguments' JSON as text), also for arguments its string scan must get
// right (quotes, backslashes, control bytes, nesting, a "}" in a string).
// It fails if the fixture's escaping or its scan of the envelope is off.
func TestEchoArgsFixture(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "echo_args"})
	srv.AddNativeEcho()
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectVersion(t, srv, nil, era)
		for _, args := range []map[string]any{
			benchArgs, {}, {"message": `a "quoted" \ back\slash`}, {"c": "\x00\x01\n\t\x1f"},
			{"u": "héllo ☃ 😀", "n": []any{1.5, nil, true, map[string]any{"x": "}]", "y": []any{}}}},
			{"arguments": "decoy", "request": map[string]any{"arguments": 1}},
		} {
			want := servertest.Text(servertest.Call(t, cs, server.NativeEchoTool, args))
			if got := servertest.Text(servertest.Call(t, cs, "echo", args)); got != want {
				t.Errorf("%s %v: echo_args answered %q, the native echo %q", era, args, got, want)
			}
		}
		// A decoy "arguments" in _meta, which the envelope carries before
		// the request's own (at depth 3, not 2).
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: benchArgs,
			Meta: mcp.Meta{"arguments": map[string]any{"decoy": true}}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", era, err, res)
		}
		if got, want := servertest.Text(res), `{"text":"the quick brown fox jumps over the lazy dog"}`; got != want {
			t.Errorf("%s: with a decoy in _meta, echo_args answered %q, want %q", era, got, want)
		}
	}
}
