// Package mcptest holds what tests that drive an MCP client share, in any
// package: the four lists a session reads, the message in an HTTP answer,
// a client connected over Streamable HTTP with a bearer token, a peer
// reading and writing a stdio stream line by line.
package mcptest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lists are a session's answers to the four list requests.
type Lists struct {
	Tools     *mcp.ListToolsResult
	Prompts   *mcp.ListPromptsResult
	Resources *mcp.ListResourcesResult
	Templates *mcp.ListResourceTemplatesResult
}

// ListAll sends the four list requests (one page each), failing the test
// if one fails.
func ListAll(t testing.TB, cs *mcp.ClientSession) Lists {
	t.Helper()
	ctx := context.Background()
	var l Lists
	var err [4]error
	l.Tools, err[0] = cs.ListTools(ctx, nil)
	l.Prompts, err[1] = cs.ListPrompts(ctx, nil)
	l.Resources, err[2] = cs.ListResources(ctx, nil)
	l.Templates, err[3] = cs.ListResourceTemplates(ctx, nil)
	if e := errors.Join(err[:]...); e != nil {
		t.Fatal(e)
	}
	return l
}

// Body reads an HTTP answer's body and gives the JSON-RPC message in it:
// an SSE answer's first data line, or the body as it is.
func Body(r io.Reader) []byte {
	raw, _ := io.ReadAll(r)
	if i := bytes.Index(raw, []byte("data: ")); i >= 0 {
		raw = raw[i+len("data: "):]
		if j := bytes.IndexByte(raw, '\n'); j >= 0 {
			raw = raw[:j]
		}
	}
	return raw
}

// CountRequests counts the requests of method the client c receives from
// its server (roots/list, sampling/createMessage...).
func CountRequests(c *mcp.Client, method string) *atomic.Int32 {
	var n atomic.Int32
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			if m == method {
				n.Add(1)
			}
			return next(ctx, m, req)
		}
	})
	return &n
}
