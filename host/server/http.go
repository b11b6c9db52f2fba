package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
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

// HTTPOptions configures the Streamable HTTP handler and server. Zero
// values mean the defaults below.
type HTTPOptions struct {
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
	// Routes are served beside /mcp by ServeHTTPOn (the operator's
	// endpoints, when they have no listener of their own: see OpsHandler).
	// /healthz and /readyz are open: probes name the pod's address as Host
	// and carry no token. Any other route gets the Host check and the same
	// authentication and limits as /mcp.
	Routes map[string]http.Handler
}

func (o *HTTPOptions) defaults() {
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

// HTTPHandler returns the Streamable HTTP handler: go-sdk's, with client
// cancellation propagated to guests, and the bounds listed above that a
// handler can apply (all but the header, idle and connection limits, which
// belong to the http.Server: see ServeHTTPOn).
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	o.defaults()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                    o.Stateless,
		MaxRequestBodyBytes:          o.MaxBodyBytes,
		SessionTimeout:               o.SessionTimeout,
		PropagateRequestCancellation: true,
		Logger:                       s.logger,
		// Our own Host check below includes go-sdk's loopback rule.
		DisableLocalhostProtection: len(o.AllowedHosts) > 0,
	})
	g := &httpGuard{srv: s, o: o, next: transport.WithRequestID(h, o.MaxBodyBytes),
		origins: http.NewCrossOriginProtection(), budget: o.MaxBodyBytesInFlight}
	g.inner = s.protect(http.HandlerFunc(g.serveBody), o.Access)
	return g
}

// httpGuard applies the handler-level bounds before go-sdk sees a request.
type httpGuard struct {
	srv     *Server
	o       HTTPOptions
	next    http.Handler
	inner   http.Handler // authentication and limits, then serveBody
	origins *http.CrossOriginProtection

	mu       sync.Mutex
	budget   int64 // body bytes still available
	sessions int   // sessions admitted and not yet ended
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if name := repeatedHeader(r.Header); name != "" {
		// Go's server keeps every copy and go-sdk and the token check read the
		// first; a proxy in front may read the last, and then the two disagree
		// about who is calling, or which session.
		rpcError(w, http.StatusBadRequest, nil, -32600, "the request has more than one "+name+" header")
		return
	}
	if !g.hostAllowed(r) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("Forbidden: Host %q is not allowed", r.Host))
		return
	}
	// CrossOriginProtection lets safe methods through (its threat is a
	// forged write); an SSE stream is a read of the session's messages, so
	// every method is checked as a POST would be.
	probe := *r
	probe.Method = http.MethodPost
	if err := g.origins.Check(&probe); err != nil {
		httpError(w, http.StatusForbidden, "Forbidden: "+err.Error())
		return
	}
	g.inner.ServeHTTP(w, r)
}

// singleHeaders may appear at most once on a request: each names who is
// calling, which session, or how to read the body.
var singleHeaders = []string{"Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"}

// repeatedHeader returns the first of singleHeaders that h holds more than
// once, or "".
func repeatedHeader(h http.Header) string {
	for _, name := range singleHeaders {
		if len(h[name]) > 1 {
			return name
		}
	}
	return ""
}

// serveBody reads and checks a POST body, then hands the request to go-sdk.
func (g *httpGuard) serveBody(w http.ResponseWriter, r *http.Request) {
	w, done := stallGuard(w, g.o.WriteStall)
	defer done()
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		g.next.ServeHTTP(w, r)
		return
	}
	if r.ContentLength > g.o.MaxBodyBytes {
		w.Header().Set("Connection", "close")
		rpcError(w, http.StatusRequestEntityTooLarge, nil, -32600,
			fmt.Sprintf("the request body is %d bytes, over the limit of %d", r.ContentLength, g.o.MaxBodyBytes))
		return
	}
	charge := r.ContentLength
	if charge < 0 {
		charge = g.o.MaxBodyBytes
	}
	if !g.take(charge) {
		w.Header().Set("Retry-After", "1")
		rpcError(w, http.StatusServiceUnavailable, nil, -32000,
			"the server is busy: too many request bytes in flight; retry later")
		return
	}
	defer g.give(charge)
	body, status, err := g.readBody(w, r)
	if err != nil {
		w.Header().Set("Connection", "close")
		rpcError(w, status, nil, -32600, err.Error())
		return
	}
	if msg, id := g.oversizeInitialize(body); msg != "" {
		rpcError(w, http.StatusBadRequest, id, -32602, msg)
		return
	}
	opens := !g.o.Stateless && r.Header.Get("Mcp-Session-Id") == "" && hasInitialize(body)
	if opens {
		body = trimInitializeBody(body) // what the session keeps (session_trim.go)
		r.ContentLength = int64(len(body))
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if opens {
		if !g.admit() {
			w.Header().Set("Retry-After", "5")
			rpcError(w, http.StatusServiceUnavailable, rawID(body), -32000,
				fmt.Sprintf("the server is at its limit of %d sessions; retry later", g.o.MaxSessions))
			return
		}
		claim := sessionClaimOf(r.Context()) // the principal's share (access.go)
		if msg := claim.take(); msg != "" {
			g.release()
			w.Header().Set("Retry-After", "5")
			rpcError(w, http.StatusTooManyRequests, rawID(body), -32000, msg)
			return
		}
		defer func() { g.settle(w.Header().Get("Mcp-Session-Id"), claim.give) }()
	}
	g.next.ServeHTTP(w, r)
}

func (g *httpGuard) take(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n > g.budget {
		return false
	}
	g.budget -= n
	return true
}

func (g *httpGuard) give(n int64) {
	g.mu.Lock()
	g.budget += n
	g.mu.Unlock()
}

// admit reserves a place for a session that this request may create.
// settle keeps it for as long as the session lives, or frees it at once if
// the request made none.
func (g *httpGuard) admit() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sessions >= g.o.MaxSessions {
		return false
	}
	g.sessions++
	return true
}

func (g *httpGuard) settle(sessionID string, also func()) {
	if sessionID != "" {
		for ss := range g.srv.mcp.Sessions() {
			// go-sdk closes a session whose initialize failed (or that
			// a request without a session ID made for itself).
			if ss.ID() == sessionID && ss.InitializeParams() != nil {
				go func() { ss.Wait(); g.release(); also() }()
				return
			}
		}
	}
	g.release()
	also()
}

func (g *httpGuard) release() {
	g.mu.Lock()
	g.sessions--
	g.mu.Unlock()
}

// readBody reads a POST body within the size limit and at the minimum
// rate: the connection's read deadline starts at BodyGrace and moves one
// second later per MinBodyRate bytes received. It returns the HTTP status
// to answer with when it fails.
func (g *httpGuard) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	rc := http.NewResponseController(w)
	start := time.Now()
	deadline := func(n int64) time.Time {
		return start.Add(g.o.BodyGrace + time.Duration(n)*time.Second/time.Duration(g.o.MinBodyRate))
	}
	paced := rc.SetReadDeadline(deadline(0)) == nil // httptest recorders cannot
	if paced {
		// Clear it, so the server's background read does not take the
		// deadline for a closed connection while the answer streams.
		defer rc.SetReadDeadline(time.Time{})
	}
	body := http.MaxBytesReader(w, r.Body, g.o.MaxBodyBytes)
	defer body.Close()
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	chunk := make([]byte, 32<<10)
	var n int64
	for {
		k, err := body.Read(chunk)
		buf.Write(chunk[:k])
		n += int64(k)
		if k > 0 && paced {
			rc.SetReadDeadline(deadline(n))
		}
		if err == io.EOF {
			return buf.Bytes(), 0, nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			switch {
			case errors.As(err, &mbe):
				return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the request body is over the limit of %d bytes", mbe.Limit)
			case errors.Is(err, os.ErrDeadlineExceeded):
				return nil, http.StatusRequestTimeout, fmt.Errorf("the request body arrived too slowly: %d bytes in %s (at least %d bytes/s after %s)",
					n, time.Since(start).Round(time.Millisecond), g.o.MinBodyRate, g.o.BodyGrace)
			}
			return nil, http.StatusBadRequest, fmt.Errorf("reading the request body: %v", err)
		}
	}
}

// oversizeInitialize returns a refusal for an initialize request (alone or
// in a batch) whose params are over MaxInitializeBytes, and its id.
func (g *httpGuard) oversizeInitialize(body []byte) (string, json.RawMessage) {
	if len(body) <= g.o.MaxInitializeBytes {
		return "", nil
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var batch []msg
	var one msg
	if json.Unmarshal(body, &one) == nil {
		batch = []msg{one}
	} else if json.Unmarshal(body, &batch) != nil {
		return "", nil // go-sdk answers the parse error
	}
	for _, m := range batch {
		if m.Method == "initialize" && len(m.Params) > g.o.MaxInitializeBytes {
			return fmt.Sprintf("initialize params are %d bytes, over the limit of %d", len(m.Params), g.o.MaxInitializeBytes), m.ID
		}
	}
	return "", nil
}

// hasInitialize reports whether a body holds an initialize request, the
// only request that makes a lasting session.
func hasInitialize(body []byte) bool {
	type msg struct {
		Method string `json:"method"`
	}
	var one msg
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []msg
	json.Unmarshal(body, &batch)
	for _, m := range batch {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// hostAllowed checks the Host header against AllowedHosts. Without a list,
// go-sdk's own rule applies (loopback connections need a loopback Host).
func (g *httpGuard) hostAllowed(r *http.Request) bool {
	if len(g.o.AllowedHosts) == 0 {
		return true
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	for _, a := range g.o.AllowedHosts {
		if strings.EqualFold(a, r.Host) || strings.EqualFold(a, name) {
			return true
		}
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local != nil && isLoopback(local.String()) && isLoopback(r.Host)
}

// isLoopback reports whether a host or host:port names the loopback
// interface.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// rawID returns the id of a single JSON-RPC request body, or nil.
func rawID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m.ID
}

// rpcError answers with an HTTP status and a JSON-RPC error body, which
// go-sdk's client surfaces as the error of the call.
func rpcError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func httpError(w http.ResponseWriter, status int, msg string) {
	http.Error(w, msg, status)
}

// ListenHTTP listens on addr (HOST:PORT or :PORT; the host defaults to
// 127.0.0.1).
func ListenHTTP(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http %q: %v (use HOST:PORT or :PORT)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// ServeHTTPOn serves Streamable HTTP at /mcp on ln until ctx ends, then
// shuts down, letting requests in progress finish for up to 30 seconds.
func (s *Server) ServeHTTPOn(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	o.defaults()
	o.Access = o.Access.shared() // one set of limits for /mcp and the routes
	if err := checkExposure(ln.Addr().String(), o.Access); err != nil {
		return err
	}
	if !isLoopback(ln.Addr().String()) && len(o.AllowedHosts) == 0 {
		s.logger.Warn("serving HTTP beyond loopback with no allowed_hosts: any Host header is accepted (DNS rebinding is possible); set allowed_hosts or --allowed-host")
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(o))
	mountMetadata(mux, o.Access)
	for path, h := range o.Routes {
		if path == "/healthz" || path == "/readyz" {
			mux.Handle(path, h)
			continue
		}
		mux.Handle(path, hostChecked(o, s.protect(h, o.Access)))
	}
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
		// No ReadTimeout or WriteTimeout: both would cut GET streams and
		// calls that stream their answers. Bodies are paced by the
		// handler, and calls end at their plugin's time limit.
	}
	s.logger.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp",
		"stateless", o.Stateless, "max_sessions", o.MaxSessions, "max_conns", o.MaxConns)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limitListener(ln, o.MaxConns)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
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
