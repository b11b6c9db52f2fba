// Command plainserver is the bench harness's baseline: a go-sdk server with
// default options and one echo tool registered with the raw Server.AddTool,
// which is what a user would write without mcpwasm. It serves stdio, or
// Streamable HTTP at http://ADDR/mcp with -http ADDR (":0" picks a port;
// the address is printed on stderr as "serving http://HOST:PORT/mcp").
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on ADDR instead of stdio")
	flag.Parse()

	s := mcp.NewServer(&mcp.Implementation{Name: "plain-go-sdk", Version: "bench"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes its arguments as text.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})

	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "serving http://%s/mcp\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	log.Fatal(http.Serve(ln, mux))
}
