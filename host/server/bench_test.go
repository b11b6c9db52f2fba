package server_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var benchArgs = map[string]any{"text": "the quick brown fox jumps over the lazy dog"}

// BenchmarkToolsCall is a tools/call round trip through the whole server
// (go-sdk client → in-memory transport → go-sdk server → registry → fresh
// sandbox → result) for the minimal WAT echo plugin, and the same round trip
// to the same server's native echo (AddNativeEcho: every middleware, no
// sandbox), the baseline of the "in process ≤ 1.5×" target.
func BenchmarkToolsCall(b *testing.B) {
	srv, _ := newServer(b, false, loadSpec{name: "echo"})
	srv.AddNativeEcho()
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		b.Run("wasm-echo/"+era, func(b *testing.B) {
			cs := connectVersion(b, srv, nil, era)
			benchCall(b, cs, "echo")
		})
		b.Run("server-native-echo/"+era, func(b *testing.B) {
			cs := connectVersion(b, srv, nil, era)
			benchCall(b, cs, server.NativeEchoTool)
		})
	}
}

// BenchmarkToolsCallNative is the same round trip to a native Go echo tool
// on a plain go-sdk server: the baseline the sandbox is measured against.
func BenchmarkToolsCallNative(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "native"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		b.Run("native-echo/"+era, func(b *testing.B) {
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).
				Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { cs.Close(); ss.Wait() }()
			benchCall(b, cs, "echo")
		})
	}
}

// BenchmarkToolsCallRatio interleaves the calls of BenchmarkToolsCall, a
// Wasm echo, the Wasm echo_args and the same server's native echo, one of
// each per iteration, and reports the medians of each and their ratios to
// the native one (the target: at most 1.5× in process). echo
// answers its whole input envelope as structuredContent; echo_args answers
// what the native echo does (its arguments as text), so args/native
// compares like with like. Interleaving keeps the ratios honest on a
// machine whose load changes during the run.
func BenchmarkToolsCallRatio(b *testing.B) {
	srv, _ := newServer(b, true, loadSpec{name: "echo"}, loadSpec{name: "echo_args"})
	srv.AddNativeEcho()
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		b.Run(era, func(b *testing.B) {
			cs := connectVersion(b, srv, nil, era)
			ctx := context.Background()
			call := func(name string) time.Duration {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: benchArgs})
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", name, err, res)
				}
				return time.Since(start)
			}
			var wasm, args, native []time.Duration
			for b.Loop() {
				wasm = append(wasm, call("echo_echo"))
				args = append(args, call("echo_args_echo"))
				native = append(native, call(server.NativeEchoTool))
			}
			w, a, n := median(wasm), median(args), median(native)
			b.ReportMetric(float64(w.Microseconds()), "wasm-µs")
			b.ReportMetric(float64(a.Microseconds()), "args-µs")
			b.ReportMetric(float64(n.Microseconds()), "native-µs")
			b.ReportMetric(float64(w)/float64(n), "wasm/native")
			b.ReportMetric(float64(a)/float64(n), "args/native")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func benchCall(b *testing.B, cs *mcp.ClientSession, name string) {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: name, Arguments: benchArgs}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkSDKGreet is the same tools/call round trip as BenchmarkToolsCall
// for the parity plugin each guest SDK builds (testdata/SDK-PARITY.md):
// greet {"name":"Ada"}, so the languages compare like for like.
func BenchmarkSDKGreet(b *testing.B) {
	for _, lang := range parityLangs {
		b.Run(lang, func(b *testing.B) {
			srv, _ := newServer(b, false, loadSpec{name: "sdk_" + lang})
			cs := connectVersion(b, srv, nil, "2025-11-25")
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
	}
}
