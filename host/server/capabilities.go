package server

// The client's capabilities: what a guest's request needs the client to
// have declared, and the error when it did not (the capabilities themselves
// come decoded and encoded once per distinct value: internal/capscache).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/server/internal/capscache"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capabilities are the client's capabilities for this request.
func (c *callbacks) capabilities() *mcp.ClientCapabilities {
	if c.caps == nil && c.session != nil {
		return capscache.SessionCaps(c.session)
	}
	return c.caps
}

// capabilityOf names the client capability a request needs.
func capabilityOf(kind string) string {
	switch kind {
	case "create_message", methodCreateMessage:
		return "sampling"
	case "create_elicitation", methodElicit:
		return "elicitation"
	case "list_roots", methodListRoots:
		return "roots"
	}
	return ""
}

func hasCapability(caps *mcp.ClientCapabilities, name string) bool {
	if caps == nil {
		return name == ""
	}
	switch name {
	case "sampling":
		return caps.Sampling != nil
	case "elicitation":
		return caps.Elicitation != nil
	case "roots":
		return caps.RootsV2 != nil
	}
	return true
}

// refuse records that the guest needed capabilities the client did not
// declare, and returns the guest's error: code -32021 with the
// capabilities in data.requiredCapabilities, as MCP's error has them.
func (c *callbacks) refuse(names ...string) error {
	c.mu.Lock()
	if c.refused == nil {
		c.refused = map[string]bool{}
	}
	for _, n := range names {
		c.refused[n] = true
	}
	c.mu.Unlock()
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": capabilitySet(names)})
	msgs := make([]string, len(names))
	for i, n := range names {
		msgs[i] = fmt.Sprintf("the client does not support %s (it declared no %s capability)", n, n)
	}
	return &abi.HostError{Code: abi.CodeMissingCapability, Message: strings.Join(msgs, "; "), Data: data}
}

func capabilitySet(names []string) map[string]any {
	set := map[string]any{}
	for _, n := range names {
		set[n] = map[string]any{}
	}
	return set
}

// missingCapability is the error a 2026-07-28 request answers when its
// guest failed after being refused a capability the client did not
// declare (MissingRequiredClientCapabilityError, -32021); nil otherwise.
func (c *callbacks) missingCapability(failed bool) error {
	if !failed || c.roundTrip == nil {
		return nil
	}
	c.mu.Lock()
	names := make([]string, 0, len(c.refused))
	for n := range c.refused {
		names = append(names, n)
	}
	c.mu.Unlock()
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": capabilitySet(names)})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: fmt.Sprintf("%s needs the client capabilities %s, which the request did not declare", c.tool, strings.Join(names, ", ")),
		Data:    data}
}
