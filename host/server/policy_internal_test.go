package server

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var policySink mcp.Result

// BenchmarkPolicyNone: what the policy middleware adds to a request when
// no policy is configured (one atomic load and a call).
func BenchmarkPolicyNone(b *testing.B) {
	s := &Server{}
	var res mcp.Result = &mcp.CallToolResult{}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil }
	h := s.enforcePolicy(next)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		policySink, _ = h(ctx, "tools/call", req)
	}
}
