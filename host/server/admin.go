package server

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
// (HTTPOptions.Routes). They only read.

// OpsPaths are the paths OpsHandler serves.
var OpsPaths = []string{"/healthz", "/readyz", "/metrics"}

// OpsHandler serves the health endpoints (see HealthHandler) and, when
// metrics is not nil, /metrics.
func (s *Server) OpsHandler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	health := s.HealthHandler()
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

// ServeAdminOn serves h (see OpsHandler) on ln until ctx ends. The
// endpoints answer at once, so every timeout is short.
func (s *Server) ServeAdminOn(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	if !isLoopback(ln.Addr().String()) {
		s.logger.Warn("serving the operator endpoints beyond loopback: /metrics and /readyz need no authentication", "addr", ln.Addr().String())
	}
	s.logger.Info("serving operator endpoints", "url", "http://"+ln.Addr().String(), "paths", OpsPaths)
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

// hostChecked applies the Streamable HTTP listener's Host check (see
// AllowedHosts) to a route served beside /mcp, so a DNS-rebinding page
// cannot read it either.
func hostChecked(o HTTPOptions, h http.Handler) http.Handler {
	g := &httpGuard{o: o}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allowed := defaultHostAllowed(r)
		if len(o.AllowedHosts) > 0 {
			allowed = g.hostAllowed(r)
		}
		if !allowed {
			httpError(w, http.StatusForbidden, fmt.Sprintf("Forbidden: Host %q is not allowed", r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// defaultHostAllowed is go-sdk's own rule, which /mcp gets from go-sdk
// when AllowedHosts is empty: a request that reached a loopback address
// must name a loopback host.
func defaultHostAllowed(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil || !isLoopback(local.String()) {
		return true
	}
	return isLoopback(r.Host)
}
