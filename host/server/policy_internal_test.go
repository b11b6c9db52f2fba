package server

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkPolicyNone: what the policy middleware adds to a request when
// no policy is configured (one atomic load).
func BenchmarkPolicyNone(b *testing.B) {
	s := &Server{}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, nil }
	h := s.enforcePolicy(next)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x"}}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h(ctx, "tools/call", req)
	}
}
