package server

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
)

// hostileURIs are client strings that go-sdk's %q-built error data turned
// into something that is not JSON (found by an outside stdio fuzzer).
var hostileURIs = []string{
	"file:///etc/passw\u007f",
	"\u0000\ud7ff\uffff",
	"x:\xff\xfe",           // invalid UTF-8: the client library sends it as U+FFFD
	"x:\u0085\u2028\u2029", // NEL and the JS line separators
	"x:\u001b[31m\"\\",
}

// TestUnencodableAnswersDoNotEndTheSession: a resources/read whose URI
// holds a DEL ended the session (go-sdk's ResourceNotFoundError data is
// built with %q); a result that does not marshal was never answered.
// Each now gets a JSON-RPC error, and the session serves on.
func TestUnencodableAnswersDoNotEndTheSession(t *testing.T) {
	srv := New(registry.New(), Options{Name: "encode-test", Features: Features{Tools: true, Resources: true}})
	srv.AddNativeEcho()
	mcp.AddTool(srv.mcp, &mcp.Tool{Name: "nan"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{StructuredContent: math.Inf(1)}, nil, nil
	})
	// A go-sdk-built not-found for a URI no handler claims (go-sdk's own
	// readResource), and mcpwasm's own for a template nobody serves.
	srv.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "t", URITemplate: "x:{rest}"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		})
	srv.Ready()
	t.Run("stream", func(t *testing.T) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st); err != nil {
			t.Fatal(err)
		}
		checkEncodable(t, ct)
	})
	t.Run("http", func(t *testing.T) {
		// go-sdk's handler as package httpserve builds it, without the
		// edge's bounds (httpserve imports this package).
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.mcp }, nil)
		hs := httptest.NewServer(transport.WithRequestID(h, mcp.DefaultMaxRequestBodyBytes))
		defer hs.Close()
		checkEncodable(t, &mcp.StreamableClientTransport{Endpoint: hs.URL})
	})
}

func checkEncodable(t *testing.T, ct mcp.Transport) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	for _, uri := range hostileURIs {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != mcp.CodeResourceNotFound {
			t.Fatalf("read %q: want a not-found error, got %v", uri, err)
		}
		var data struct{ URI string }
		if err := json.Unmarshal(we.Data, &data); err != nil {
			t.Fatalf("read %q: error data %q is not JSON: %v", uri, we.Data, err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "native_echo", Arguments: map[string]any{"text": "still here"}}); err != nil {
			t.Fatalf("after reading %q the session is gone: %v", uri, err)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nan", Arguments: map[string]any{}})
	if err != nil || !res.IsError || res.Meta[abi.MetaErrorKey] != string(abi.ErrBadOutput) {
		t.Fatalf("a tool result that does not marshal: want an isError bad_output result, got %+v %v", res, err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("after an unencodable result the session is gone: %v", err)
	}
}
