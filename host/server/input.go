package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Input from the client: the guest's requests for sampling, elicitation and
// roots, one at a time (create_message, create_elicitation, list_roots) or
// several at once under keys of its choosing (request_input), in both
// protocol eras (roundtrip.go answers them in 2026-07-28; capabilities.go
// says what each needs the client to have declared).

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
