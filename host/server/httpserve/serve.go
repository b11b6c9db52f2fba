package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Streamable HTTP is open to anyone who can reach the port, before any
// login: everything a request can make the server hold is bounded here. The
// bounds and why they are shaped so:
//
//   - a request body is capped (MaxBodyBytes, 413 before reading when the
//     declared length is over), and the bytes of all bodies being handled at
//     once are capped too (MaxBodyBytesInFlight, 503): decoding multiplies a
//     body's size several times, so the sum is what bounds memory;
//   - a body must arrive at a minimum rate after a grace period, or the
//     request is answered 408 and its connection closed (slow-loris);
//   - headers must arrive within ReadHeaderTimeout; an idle keep-alive
//     connection is closed after IdleTimeout; at most MaxConns connections
//     are served (the rest wait in the listen queue);
//   - there is no write timeout: GET streams and long calls stream their
//     answers; a call is bounded by its plugin's time limit instead;
//   - stateful sessions are capped (MaxSessions, 503), expire when idle
//     (SessionTimeout), and an initialize request whose params exceed
//     MaxInitializeBytes is refused, since a session keeps them;
//   - a foreign Origin is refused on every method, GET included, and on a
//     non-loopback bind AllowedHosts lists the Host headers accepted.

// Options configures the Streamable HTTP handler and server. Zero
// values mean the defaults below.
type Options struct {
	// Stateless serves every request on its own, without sessions. It is
	// required for protocol 2026-07-28 clients; it rules out server-to-client
	// requests for older clients.
	Stateless bool
	// MaxBodyBytes bounds a request body (default 4 MiB → 413).
	MaxBodyBytes int64
	// MaxBodyBytesInFlight bounds the bytes of all request bodies being
	// handled at once (default 64 MiB → 503). A body without a declared
	// length counts as MaxBodyBytes.
	MaxBodyBytesInFlight int64
	// SessionTimeout closes idle stateful sessions (default 30 minutes).
	SessionTimeout time.Duration
	// MaxSessions bounds the live stateful sessions (default 1000); a new
	// session over it is refused with 503.
	MaxSessions int
	// MaxInitializeBytes bounds the params of an initialize request, which
	// a session keeps for its lifetime (default 64 KiB → 400).
	MaxInitializeBytes int
	// AllowedHosts, if set, lists the Host header values accepted (a name,
	// or name:port). Loopback hosts are also accepted on loopback
	// connections. Unset, a loopback bind accepts only loopback hosts and
	// another bind accepts any host.
	AllowedHosts []string

	// ReadHeaderTimeout bounds the reading of request headers (default 10s).
	ReadHeaderTimeout time.Duration
	// BodyGrace and MinBodyRate bound the reading of a body: it must have
	// arrived by BodyGrace (default 10s) plus one second per MinBodyRate
	// bytes received (default 64 KiB/s), or the request is refused with 408.
	BodyGrace   time.Duration
	MinBodyRate int64
	// IdleTimeout closes a keep-alive connection idle this long (default 2
	// minutes).
	IdleTimeout time.Duration
	// WriteStall is how long one write to a client may block (its socket
	// full: it is not reading) before the connection is given up (default
	// 30s); see stall.go.
	WriteStall time.Duration
	// MaxConns bounds the connections served at once (default 1024).
	MaxConns int
	// ShutdownTimeout is how long requests already received may run once
	// ctx ends (default 30s): the listener closes at once, so a load
	// balancer's next connection goes to another replica, and no request
	// that arrived is refused.
	ShutdownTimeout time.Duration
	// Access decides who may call and how much (see access.go).
	Access AccessOptions
	// Routes are served beside /mcp by Serve (the operator's
	// endpoints, when they have no listener of their own: see OpsHandler).
	// /healthz and /readyz are open: probes name the pod's address as Host
	// and carry no token. Any other route gets the Host check and the same
	// authentication and limits as /mcp.
	Routes map[string]http.Handler
}

func (o *Options) defaults() {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxBodyBytes, mcp.DefaultMaxRequestBodyBytes)
	def(&o.MaxBodyBytesInFlight, 64<<20)
	def(&o.MinBodyRate, 64<<10)
	o.MaxBodyBytesInFlight = max(o.MaxBodyBytesInFlight, o.MaxBodyBytes)
	dur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	dur(&o.SessionTimeout, 30*time.Minute)
	dur(&o.ReadHeaderTimeout, 10*time.Second)
	dur(&o.BodyGrace, 10*time.Second)
	dur(&o.IdleTimeout, 2*time.Minute)
	dur(&o.WriteStall, 30*time.Second)
	dur(&o.ShutdownTimeout, 30*time.Second)
	if o.MaxSessions <= 0 {
		o.MaxSessions = 1000
	}
	if o.MaxInitializeBytes <= 0 {
		o.MaxInitializeBytes = 64 << 10
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 1024
	}
}

// Handler returns the Streamable HTTP handler: go-sdk's, with client
// cancellation propagated to guests, and the bounds listed above that a
// handler can apply (all but the header, idle and connection limits, which
// belong to the http.Server: see Serve).
func Handler(s Server, o Options) http.Handler {
	o.defaults()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, &mcp.StreamableHTTPOptions{
		Stateless:                    o.Stateless,
		MaxRequestBodyBytes:          o.MaxBodyBytes,
		SessionTimeout:               o.SessionTimeout,
		PropagateRequestCancellation: true,
		Logger:                       s.Logger(),
		// Our own Host check below includes go-sdk's loopback rule.
		DisableLocalhostProtection: len(o.AllowedHosts) > 0,
	})
	g := &httpGuard{srv: s, o: o, next: transport.WithRequestID(h, o.MaxBodyBytes),
		origins: http.NewCrossOriginProtection(), budget: o.MaxBodyBytesInFlight}
	g.inner = protect(s, http.HandlerFunc(g.serveBody), o.Access)
	return g
}

// Listen listens on addr (HOST:PORT or :PORT; the host defaults to
// 127.0.0.1).
func Listen(addr string) (net.Listener, error) { return listen("--http", addr) }

// listen listens on addr, named by flag in an error.
func listen(flag, addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v (use HOST:PORT or :PORT)", flag, addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// Serve serves s over Streamable HTTP at /mcp on ln until ctx ends, then
// shuts down, letting requests in progress finish for up to
// o.ShutdownTimeout.
func Serve(ctx context.Context, s Server, ln net.Listener, o Options) error {
	o.defaults()
	o.Access = o.Access.shared() // one set of limits for /mcp and the routes
	if err := checkExposure(ln.Addr().String(), o.Access); err != nil {
		return err
	}
	if !isLoopback(ln.Addr().String()) && len(o.AllowedHosts) == 0 {
		s.Logger().Warn("serving HTTP beyond loopback with no allowed_hosts: any Host header is accepted (DNS rebinding is possible); set allowed_hosts or --allowed-host")
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", Handler(s, o))
	mountMetadata(mux, o.Access)
	for path, h := range o.Routes {
		if path == "/healthz" || path == "/readyz" {
			mux.Handle(path, h)
			continue
		}
		mux.Handle(path, hostChecked(o, protect(s, h, o.Access)))
	}
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.Logger().Handler(), slog.LevelWarn),
		// No ReadTimeout or WriteTimeout: both would cut GET streams and
		// calls that stream their answers. Bodies are paced by the
		// handler, and calls end at their plugin's time limit.
	}
	s.Logger().Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp",
		"stateless", o.Stateless, "max_sessions", o.MaxSessions, "max_conns", o.MaxConns)
	return serveUntil(ctx, hs, limitListener(ln, o.MaxConns), o.ShutdownTimeout)
}

// serveUntil serves hs on ln until ctx ends, then shuts it down, letting
// requests in progress finish for up to grace.
func serveUntil(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// limitListener accepts at most n connections at once; the next Accept
// waits until one closes (as golang.org/x/net/netutil.LimitListener).
func limitListener(ln net.Listener, n int) net.Listener {
	return &limitedListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	slots     chan struct{}
	closeOnce sync.Once
	done      chan struct{}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, free: func() { <-l.slots }}, nil
}

func (l *limitedListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
