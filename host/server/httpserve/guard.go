package httpserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/server/internal/sessiontrim"
)

// httpGuard applies the handler-level bounds before go-sdk sees a request.
type httpGuard struct {
	srv     Server
	o       Options
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
	// Without AllowedHosts, go-sdk applies the default rule (host.go).
	if len(g.o.AllowedHosts) > 0 && !listedHost(g.o.AllowedHosts, r) {
		refuseHost(w, r)
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
	if !g.o.Stateless && r.Header.Get("Mcp-Session-Id") == "" {
		if method, id := needsSession(body); method != "" {
			rpcError(w, http.StatusBadRequest, id, -32600, noSessionMessage(method)) // nosession.go
			return
		}
	}
	opens := !g.o.Stateless && r.Header.Get("Mcp-Session-Id") == "" && hasInitialize(body)
	if opens {
		body = sessiontrim.Body(body) // what the session keeps
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
		claim := sessionClaimOf(r.Context()) // the principal's share (limits.go)
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
		for ss := range g.srv.MCP().Sessions() {
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
