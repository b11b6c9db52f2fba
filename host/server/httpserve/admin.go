package httpserve

import (
	"context"
	"errors"
	"fmt"
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
func ListenAdmin(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--admin %q: %v (use HOST:PORT or :PORT)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

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
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limitListener(ln, 64)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
