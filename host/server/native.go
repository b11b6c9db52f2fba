package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NativeEchoTool is the name of the tool AddNativeEcho registers.
const NativeEchoTool = "native_echo"

// AddNativeEcho registers native_echo, a Go tool that answers its arguments
// as text, on the raw Server.AddTool path with no sandbox. It exists for the
// bench harness (serve --bench-native-echo): the same binary and server, so
// the difference to a Wasm echo is the sandbox's cost.
func (s *Server) AddNativeEcho() {
	s.mcp.AddTool(&mcp.Tool{Name: NativeEchoTool, Description: "Bench only: echoes its arguments as text, natively.",
		InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
}
