package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Input from the client: the guest's requests for sampling, elicitation and
// roots, one at a time (create_message, create_elicitation, list_roots) or
// several at once under keys of its choosing (request_input), in both
// protocol eras; and what a request needs the client to have declared.

// Targets name what a round trip's requestState is bound to.
func toolTarget(name string) string    { return fmt.Sprintf("tool %q", name) }
func promptTarget(name string) string  { return fmt.Sprintf("prompt %q", name) }
func resourceTarget(uri string) string { return fmt.Sprintf("resource %q", uri) }

// startRoundTrip gives cb a round trip for a 2026-07-28 request (and leaves
// older ones alone): stop, the request's cancel function, ends the guest
// when it needs input. A requestState that does not open, or belongs to
// another request or another principal (req's token), is an
// invalid-params error.
func (s *Server) startRoundTrip(cb *callbacks, req mcp.Request, version, target string, args json.RawMessage,
	responses mcp.InputResponseMap, state string, stop context.CancelFunc) error {
	if version < modernProtocol {
		return nil
	}
	var who string
	if info := tokenInfo(req); info != nil {
		who = info.UserID
	}
	rt, err := newRoundTrip(target, who, args, responses, state, s.stateKey, stop)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if len(rt.ignored) > 0 {
		// The keys are the client's: log how many, and a few, clipped.
		some := make([]string, 0, maxLoggedKeys)
		for _, k := range rt.ignored[:min(len(rt.ignored), maxLoggedKeys)] {
			some = append(some, clip.String(k, clip.Log))
		}
		s.logger.Debug("ignoring inputResponses this server did not ask for", "target", target,
			"count", len(rt.ignored), "keys", some)
	}
	cb.roundTrip = rt
	return nil
}

// maxLoggedKeys is how many of a request's unsolicited inputResponses keys
// are logged.
const maxLoggedKeys = 8

// requestInfo is what the guest serving req is told about it.
func requestInfo(extra *mcp.RequestExtra, meta mcp.Meta, caps json.RawMessage) registry.RequestInfo {
	return registry.RequestInfo{ID: transport.RequestID(extra), Meta: guestMetaIn(meta), ClientCapabilities: caps}
}

// maxInputRequests bounds one request_input batch.
const maxInputRequests = 16

// inputKey is what a guest may name its requests: the client echoes the key
// back, and it must not collide with the host's own keys ("mcpwasm-…", and
// "<function>-<k>" of the single-request functions).
var (
	inputKey      = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	replayKey     = regexp.MustCompile(`^(create_message|create_elicitation|list_roots)-[0-9]+$`)
	errNoRequests = errors.New(`request_input: want {"inputRequests": {"<key>": {"method": ..., "params": ...}, ...}} with at least one request`)
)

// parseInputRequests reads a request_input payload:
// {"inputRequests": {"<key>": {"method": "elicitation/create" |
// "sampling/createMessage" | "roots/list", "params": {...}}}}.
func parseInputRequests(payload json.RawMessage) (mcp.InputRequestMap, error) {
	var p struct {
		InputRequests map[string]*struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || len(p.InputRequests) == 0 {
		return nil, errNoRequests
	}
	if len(p.InputRequests) > maxInputRequests {
		return nil, fmt.Errorf("request_input: %d requests; at most %d at once", len(p.InputRequests), maxInputRequests)
	}
	out := mcp.InputRequestMap{}
	for key, r := range p.InputRequests {
		switch {
		case !inputKey.MatchString(key):
			return nil, fmt.Errorf("request_input: key %q: use 1 to 64 letters, digits, '_', '.' or '-'", key)
		case strings.HasPrefix(key, "mcpwasm") || replayKey.MatchString(key):
			return nil, fmt.Errorf("request_input: key %q is reserved for the host", key)
		case r == nil:
			return nil, fmt.Errorf("request_input: %q: want {\"method\": ..., \"params\": ...}", key)
		}
		params := r.Params
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage("{}")
		}
		if r.Method != methodElicit && r.Method != methodCreateMessage && r.Method != methodListRoots {
			return nil, fmt.Errorf("request_input: %q: method %q is not one a server may ask (%s, %s or %s)",
				key, r.Method, methodElicit, methodCreateMessage, methodListRoots)
		}
		req, err := inputRequest(r.Method, params)
		if err != nil {
			return nil, fmt.Errorf("request_input: %q: %v", key, err)
		}
		out[key] = req
	}
	return out, nil
}

// requestInput serves request_input: the answers to every request, by key,
// as {"inputResponses": {...}}. In 2026-07-28 they come from the round
// trip (the guest stops until the client answered them all); before, from
// one server-to-client request each, in key order.
func (c *callbacks) requestInput(ctx context.Context, payload json.RawMessage) (json.RawMessage, error) {
	reqs, err := parseInputRequests(payload)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, req := range reqs {
		if name := capabilityOf(requestMethod(req)); !hasCapability(c.capabilities(), name) && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, c.refuse(missing...)
	}
	var answers map[string]json.RawMessage
	if c.roundTrip != nil {
		if answers, err = c.roundTrip.answerAll(reqs); err != nil {
			return nil, err
		}
	} else {
		answers = map[string]json.RawMessage{}
		keys := make([]string, 0, len(reqs))
		for k := range reqs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if answers[k], err = c.ask(ctx, reqs[k]); err != nil {
				return nil, explain(fmt.Sprintf("request_input %q (%s)", k, requestMethod(reqs[k])), err)
			}
		}
	}
	return json.Marshal(map[string]any{"inputResponses": answers})
}

// ask makes one server-to-client request (protocols before 2026-07-28);
// callers explain its errors.
func (c *callbacks) ask(ctx context.Context, req mcp.InputRequest) (json.RawMessage, error) {
	if c.session == nil {
		return nil, errors.New("no client session")
	}
	if _, ok := ctx.Deadline(); !ok && c.plugin != nil {
		// The guest's context carries the call's deadline; should a caller
		// not, the wait for the client is bounded all the same.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.plugin.Config().Timeout)
		defer cancel()
	}
	var res any
	var err error
	switch p := req.(type) {
	case *mcp.CreateMessageParams:
		res, err = c.session.CreateMessage(ctx, p)
	case *mcp.ElicitParams:
		res, err = c.session.Elicit(ctx, p)
	default:
		res, err = c.session.ListRoots(ctx, nil)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// capabilities are the client's capabilities for this request.
func (c *callbacks) capabilities() *mcp.ClientCapabilities {
	if c.caps == nil && c.session != nil {
		return clientCapabilities(c.session)
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

// guestFailed reports whether a tool result is a failure the guest
// produced itself (an isError result, or a non-zero return), as opposed to
// one the host classified (timeout, trap, ...).
func guestFailed(res *mcp.CallToolResult) bool {
	if !res.IsError {
		return false
	}
	cat, _ := res.Meta[abi.MetaErrorKey].(string)
	return cat == "" || cat == string(abi.ErrGuest)
}
