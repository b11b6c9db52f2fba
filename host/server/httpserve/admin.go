package httpserve

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// The operator's endpoints — /healthz, /readyz and /metrics — are served
// without authentication, either on their own listener (--admin, which
// also works in stdio mode) or beside /mcp on the Streamable HTTP listener
// (Options.Routes). They only read.

// OpsPaths are the paths OpsHandler serves.
var OpsPaths = []string{"/healthz", "/readyz", "/metrics"}

// OpsHandler serves the health endpoints (see HealthHandler) and, when
// metrics is not nil, /metrics.
func OpsHandler(s Server, metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	health := HealthHandler(s)
	mux.Handle("/healthz", health)
	mux.Handle("/readyz", health)
	if metrics != nil {
		mux.Handle("/metrics", readOnly(metrics))
	}
	return mux
}

// ListenAdmin listens on addr for the operator's endpoints (HOST:PORT or
// :PORT; the host defaults to 127.0.0.1).
func ListenAdmin(addr string) (net.Listener, error) { return listen("--admin", addr) }

// ServeAdmin serves h (see OpsHandler) on ln until ctx ends. The
// endpoints answer at once, so every timeout is short.
func ServeAdmin(ctx context.Context, s Server, ln net.Listener, h http.Handler) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.Logger().Handler(), slog.LevelWarn),
	}
	if !isLoopback(ln.Addr().String()) {
		s.Logger().Warn("serving the operator endpoints beyond loopback: /metrics and /readyz need no authentication", "addr", ln.Addr().String())
	}
	s.Logger().Info("serving operator endpoints", "url", "http://"+ln.Addr().String(), "paths", OpsPaths)
	return serveUntil(ctx, hs, limitListener(ln, 64), 5*time.Second)
}
