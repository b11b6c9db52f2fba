package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestDebugEndpoint checks MCPWASM_DEBUG_ADDR: off when unset, refused on
// an address that is not loopback, and on loopback it serves the goroutine
// count and the goroutine stacks.
func TestDebugEndpoint(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Setenv(debugAddrEnv, "")
	if err := startDebug(logger); err != nil {
		t.Fatalf("unset: %v", err)
	}
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:6060", ":6060", "nonsense"} {
		t.Setenv(debugAddrEnv, addr)
		if err := startDebug(logger); err == nil || !strings.Contains(err.Error(), debugAddrEnv) {
			t.Errorf("%s=%q: error %v, want a refusal naming the variable", debugAddrEnv, addr, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv(debugAddrEnv, addr)
	if err := startDebug(logger); err != nil {
		t.Fatal(err)
	}
	get := func(path string) string {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		return string(b)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(get("/debug/goroutines"))); err != nil || n < 2 {
		t.Errorf("/debug/goroutines: %d, %v; want a count", n, err)
	}
	if s := get("/debug/pprof/goroutine"); !strings.Contains(s, "goroutine profile: total") {
		t.Errorf("/debug/pprof/goroutine: %.200q", s)
	}
}
