// Package mcptest holds what tests that drive an MCP client share, in any
// package: the four lists a session reads.
package mcptest

import (
	"context"
	"errors"
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
