package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A request for a tool, prompt or resource that trust holds is answered
// with Options.Held's message, naming what it asked for; one for something
// neither served nor held gets go-sdk's own answer.
func TestHeldTargetsSaySo(t *testing.T) {
	held := map[string]bool{"tool t": true, "prompt p": true, "resource x://held": true}
	srv := server.New(registry.New(), server.Options{Features: server.Features{Tools: true, Prompts: true, Resources: true},
		Held: func(kind, name string) (string, bool) {
			return kind + " " + name + " is held", held[kind+" "+name]
		}})
	srv.Ready()
	cs := connect(t, srv, nil)
	ctx := context.Background()
	_, errTool := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	_, errPrompt := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"})
	_, errRead := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "x://held"})
	for what, err := range map[string]error{"tool t": errTool, "prompt p": errPrompt, "resource x://held": errRead} {
		if err == nil || !strings.Contains(err.Error(), what+" is held") {
			t.Errorf("%s: %v, want the held message", what, err)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "other", Arguments: map[string]any{}}); err == nil || strings.Contains(err.Error(), "is held") {
		t.Errorf("a tool neither served nor held: %v", err)
	}
}
