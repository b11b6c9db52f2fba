package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
