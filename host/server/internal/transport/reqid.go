package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk v1.8.0 keeps a request's JSON-RPC id to itself, but passes each
// request's transport "extra" (for HTTP, its headers) to the handler. The
// ABI promises guests the id in context.id, so the transports below put it
// there, under idHeader, before go-sdk sees the request.
const idHeader = "Mcp-Wasm-Jsonrpc-Id"

// linkHeader carries a token naming the HTTP request a JSON-RPC request came
// in, so its handler can stop when the client drops the connection. go-sdk
// does that itself only for 2026-07-28 requests.
const linkHeader = "Mcp-Wasm-Request-Link"

// httpLinks maps link tokens to the contexts of in-flight HTTP requests.
var httpLinks sync.Map

var linkSeq atomic.Uint64

// LinkedContext returns ctx, cancelled also when the HTTP request the call
// came in is gone. stop releases the link.
func LinkedContext(ctx context.Context, extra *mcp.RequestExtra) (context.Context, context.CancelFunc) {
	if extra == nil || extra.Header == nil {
		return ctx, func() {}
	}
	v, ok := httpLinks.Load(extra.Header.Get(linkHeader))
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() { stop(); cancel() }
}

// RequestID returns the JSON-RPC id recorded for a request, or nil.
func RequestID(extra *mcp.RequestExtra) any {
	if extra == nil || extra.Header == nil {
		return nil
	}
	raw := extra.Header.Get(idHeader)
	if raw == "" {
		return nil
	}
	var id any
	if json.Unmarshal([]byte(raw), &id) != nil {
		return nil
	}
	return id
}

// RawRequestID returns the JSON-RPC id recorded for a request as its JSON
// text, or "".
func RawRequestID(extra *mcp.RequestExtra) string {
	if extra == nil || extra.Header == nil {
		return ""
	}
	return extra.Header.Get(idHeader)
}

// OverHTTP reports whether a request came in a POST to the Streamable HTTP
// endpoint (WithRequestID marks every one).
func OverHTTP(extra *mcp.RequestExtra) bool {
	return extra != nil && extra.Header != nil && extra.Header.Get(linkHeader) != ""
}

// WithIDs returns t with the request ids recorded (see idTransport).
func WithIDs(t mcp.Transport) mcp.Transport { return idTransport{t} }

// idTransport records request ids for the transports given to Connect
// (in-memory, pipes). ServeStdio's own transport records them itself, as
// the client sent them (see stdio_admit.go).
type idTransport struct{ mcp.Transport }

func (t idTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &idConn{Connection: c}, nil
}

type idConn struct{ mcp.Connection }

func (c *idConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
		if raw, err := json.Marshal(req.ID.Raw()); err == nil {
			extra, _ := req.Extra.(*mcp.RequestExtra)
			if extra == nil {
				extra = &mcp.RequestExtra{}
				req.Extra = extra
			}
			if extra.Header == nil {
				extra.Header = http.Header{}
			}
			extra.Header.Set(idHeader, string(raw))
		}
	}
	return m, err
}

// WithRequestID records the JSON-RPC id of a POSTed request as a header
// that go-sdk hands to the handler. A client's own header of that name is
// discarded first, so it cannot be spoofed.
func WithRequestID(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(idHeader)
		r.Header.Del(linkHeader)
		if r.Method == http.MethodPost && r.Body != nil {
			token := strconv.FormatUint(linkSeq.Add(1), 36)
			httpLinks.Store(token, r.Context())
			defer httpLinks.Delete(token)
			r.Header.Set(linkHeader, token)
			body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
			r.Body.Close()
			if err != nil {
				http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			// go-sdk enforces the body limit itself (413); hand it the bytes.
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			if len(body) <= int(limit) && json.Unmarshal(body, &msg) == nil && len(msg.ID) > 0 && string(msg.ID) != "null" {
				r.Header.Set(idHeader, string(msg.ID))
			}
		}
		next.ServeHTTP(w, r)
	})
}
