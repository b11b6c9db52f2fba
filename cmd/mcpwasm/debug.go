package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// debugAddrEnv names the environment variable that turns on the debugging
// endpoint of "mcpwasm serve" (off by default). It must be a loopback
// address, e.g. 127.0.0.1:6070; the endpoint serves
//
//	GET /debug/goroutines         the number of goroutines, one line
//	GET /debug/pprof/goroutine    every goroutine's stack (pprof debug=1 text)
//
// "mcpwasm-bench --soak" reads it to check that goroutines stay flat.
const debugAddrEnv = "MCPWASM_DEBUG_ADDR"

// startDebug starts the debugging endpoint if debugAddrEnv is set. It
// refuses an address that is not loopback: goroutine stacks show what the
// server is doing and are for the operator only.
func startDebug(logger *slog.Logger) error {
	addr := os.Getenv(debugAddrEnv)
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s=%q: %v", debugAddrEnv, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s=%q: the debugging endpoint listens on loopback only (127.0.0.1, ::1 or localhost)", debugAddrEnv, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: %v", debugAddrEnv, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/goroutines", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, runtime.NumGoroutine())
	})
	mux.HandleFunc("GET /debug/pprof/goroutine", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		pprof.Lookup("goroutine").WriteTo(w, 1)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	logger.Info("debugging endpoint (goroutines)", "addr", ln.Addr().String(), "env", debugAddrEnv)
	return nil
}
