package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol 2026-07-28 renumbered its error codes: the specification owns
// -32020 to -32099 (HeaderMismatch -32020, MissingRequiredClientCapability
// -32021, UnsupportedProtocolVersion -32022), implementations keep -32000 to
// -32019, and applications stay out of JSON-RPC's reserved range. The
// codes mcpwasm defines itself follow that; those it shares with MCP are
// MCP's.
func TestErrorCodesFollow20260728(t *testing.T) {
	if c := server.CodeForbidden; c >= -32768 && c <= -32000 {
		t.Errorf("CodeForbidden = %d: inside JSON-RPC's reserved range (-32768..-32000), and -32020..-32099 is MCP's", c)
	}
	if abi.CodeMissingCapability != mcp.CodeMissingRequiredClientCapabilities {
		t.Errorf("abi.CodeMissingCapability = %d, want MCP's -32021", abi.CodeMissingCapability)
	}
}

// A resource that does not exist is -32602 (Invalid Params, SEP-2164), not
// the -32002 of 2025-11-25, with the URI in the data; on both protocol
// generations.
func TestResourceNotFoundCode(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		cs := connectVersion(t, srv, nil, version)
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://no-such-resource"})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || string(we.Data) != `{"uri":"test://no-such-resource"}` {
			t.Errorf("protocol %q: read of a missing resource: %v (%#v), want code -32602 with the uri", version, err, we)
		}
	}
}

// TestPromptMissingArgument: prompts/get without a required argument is
// Invalid Params (-32602) naming the argument, refused by the server before
// the plugin runs (the conformance guest checks too, with its own message
// and -32603), on both protocol generations. Before, the guest ran and its
// error came back as -32603.
func TestPromptMissingArgument(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectVersion(t, srv, nil, version)
		_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_prompt_with_arguments",
			Arguments: map[string]string{"arg1": "x"}})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, `missing required arguments ["arg2"]`) {
			t.Errorf("protocol %s: prompts/get without arg2: %v (%#v), want -32602 naming arg2 only", version, err, we)
		}
	}
	// With every required argument, the guest runs.
	cs := connect(t, srv, nil)
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_prompt_with_arguments",
		Arguments: map[string]string{"arg1": "x", "arg2": "y"}}); err != nil {
		t.Fatalf("prompts/get with its arguments: %v", err)
	}
}
