package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/server/internal/reqstate"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol 2026-07-28 has no server-to-client requests. A server that needs
// the client (sampling, elicitation, roots) answers with an input-required
// result; the client fulfils the requests and calls again (SEP-2322,
// "multi round-trip requests"). This serves tools/call, prompts/get and
// resources/read alike.
//
// A guest cannot pause across round trips, so mcpwasm replays: the guest's
// k-th single request of a kind in a call is keyed "<function>-<k>", and a
// request_input batch uses the guest's own keys. When the guest asks for
// something whose answer is not known yet, the host records that ask (one
// request, or a whole batch), stops the guest and returns it to the client;
// on the retry the guest runs again from the start and gets the answers it
// already has. Earlier answers travel in requestState. Guests therefore
// should make the same requests in the same order when re-run with the same
// arguments — which a tool that asks before acting naturally does.
type roundTrip struct {
	mu      sync.Mutex
	answers map[string]json.RawMessage
	counts  map[string]int
	pending mcp.InputRequestMap // this round's requests, once the guest asked
	stop    context.CancelFunc
	key     []byte          // signs requestState
	what    string          // what was called: tool "x", prompt "x", resource "uri"
	args    string          // reqstate.ArgsHash of the request's arguments, once a state needs it (argsKey)
	rawArgs json.RawMessage // the arguments, until then
	who     string          // the principal (token name or subject); "" unauthenticated
	// ignored lists the inputResponses keys the last round did not issue:
	// answers nobody asked for are never handed to a guest.
	ignored []string
}

var errInputRequired = errors.New("input required from the client")

// Methods of the requests a server may put in an input-required result.
const (
	methodElicit        = "elicitation/create"
	methodCreateMessage = "sampling/createMessage"
	methodListRoots     = "roots/list"
)

// newRoundTrip starts a 2026-07-28 request for what (tool "x", prompt "x",
// resource "uri") by who (the principal; "" without authentication). It
// takes the client's inputResponses only to the requests its requestState
// says were issued, for this target with these arguments, to this
// principal, before the state expired; an answer to anything else is
// ignored (the guest asks again), as is every answer without a
// requestState. A state that does not open, or belongs to another request,
// is an error.
func newRoundTrip(what, who string, args json.RawMessage, responses mcp.InputResponseMap, state string,
	key []byte, stop context.CancelFunc) (*roundTrip, error) {
	rt := &roundTrip{answers: map[string]json.RawMessage{}, counts: map[string]int{}, stop: stop, key: key,
		what: what, rawArgs: args, who: who}
	issued := map[string]string{}
	if state != "" {
		b, err := reqstate.Open(key, state)
		var st reqstate.State
		if err != nil || json.Unmarshal(b, &st) != nil {
			return nil, errors.New("invalid requestState: it was not issued by this server, or was altered")
		}
		switch {
		case st.What != what:
			return nil, fmt.Errorf("invalid requestState: it was issued for %s, not %s", st.What, what)
		case st.Args != rt.argsKey():
			return nil, errors.New("invalid requestState: it was issued for other arguments; retry with the arguments of the first call")
		case st.Who != who:
			return nil, errors.New("invalid requestState: it was issued to another principal; call again without it")
		case time.Now().Unix() > st.Expires:
			return nil, errors.New("invalid requestState: it expired; call again without it")
		}
		for id, a := range st.Answers {
			rt.answers[id] = a
		}
		issued = st.Issued
	}
	for id, resp := range responses {
		method, ok := issued[id]
		if !ok {
			rt.ignored = append(rt.ignored, id)
			continue
		}
		if !answers(method, resp) {
			return nil, fmt.Errorf("inputResponses[%q]: not an answer to %s", id, method)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("inputResponses[%q]: %v", id, err)
		}
		rt.answers[id] = b
	}
	sort.Strings(rt.ignored)
	return rt, nil
}

// answers reports whether resp is the kind of result method asks for.
func answers(method string, resp mcp.InputResponse) bool {
	switch resp.(type) {
	case *mcp.ElicitResult:
		return method == methodElicit
	case *mcp.CreateMessageResult, *mcp.CreateMessageWithToolsResult:
		return method == methodCreateMessage
	case *mcp.ListRootsResult:
		return method == methodListRoots
	}
	return false
}

// argsKey is reqstate.ArgsHash of the request's arguments, computed the first time
// a requestState is checked or issued: most calls need neither, and the
// hash decodes and encodes the arguments (8 µs of a 2026-07-28 Wasm echo's
// CPU). Callers hold rt.mu, or own rt alone (newRoundTrip).
func (rt *roundTrip) argsKey() string {
	if rt.args == "" {
		rt.args = reqstate.ArgsHash(rt.rawArgs)
	}
	return rt.args
}

// inputRequest decodes a guest's request of one kind: a host function's
// payload (create_message, create_elicitation, list_roots) or a
// request_input entry (by method).
func inputRequest(kind string, payload json.RawMessage) (mcp.InputRequest, error) {
	var req mcp.InputRequest
	switch kind {
	case "create_message", methodCreateMessage:
		req = &mcp.CreateMessageParams{}
	case "create_elicitation", methodElicit:
		req = &mcp.ElicitParams{}
	case "list_roots", methodListRoots:
		return &mcp.ListRootsParams{}, nil
	default:
		return nil, fmt.Errorf("unknown request %q", kind)
	}
	if err := json.Unmarshal(payload, req); err != nil {
		return nil, fmt.Errorf("%s: invalid request: %v", kind, err)
	}
	return req, nil
}

// answer returns the known answer to the guest's next request of this kind,
// or records the request, stops the guest and returns errInputRequired.
func (rt *roundTrip) answer(function string, payload json.RawMessage) (json.RawMessage, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	id := fmt.Sprintf("%s-%d", function, rt.counts[function])
	rt.counts[function]++
	req, err := inputRequest(function, payload)
	if err != nil {
		return nil, err
	}
	if a, ok := rt.answers[id]; ok {
		return checkAnswer(req, a)
	}
	rt.record(mcp.InputRequestMap{id: req})
	return nil, errInputRequired
}

// answerAll returns the known answers to a batch of requests, by key, or
// records the unanswered ones, stops the guest and returns
// errInputRequired.
func (rt *roundTrip) answerAll(reqs mcp.InputRequestMap) (map[string]json.RawMessage, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := map[string]json.RawMessage{}
	missing := mcp.InputRequestMap{}
	for id, req := range reqs {
		if a, ok := rt.answers[id]; ok {
			checked, err := checkAnswer(req, a)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", id, err)
			}
			out[id] = checked
		} else {
			missing[id] = req
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	rt.record(missing)
	return nil, errInputRequired
}

// checkAnswer holds the client's answer to req to what go-sdk checks of an
// answer in the protocols before 2026-07-28: an accepted elicitation's
// content must match the requestedSchema (an absent content is an empty
// object, so required fields are required), whose defaults are then
// filled in. The answer travelled through the client, which may say
// anything.
func checkAnswer(req mcp.InputRequest, answer json.RawMessage) (json.RawMessage, error) {
	ep, ok := req.(*mcp.ElicitParams)
	if !ok || ep.RequestedSchema == nil {
		return answer, nil
	}
	var res mcp.ElicitResult
	if err := json.Unmarshal(answer, &res); err != nil {
		return nil, fmt.Errorf("not an elicitation result: %v", err)
	}
	if res.Action != "accept" {
		return answer, nil
	}
	if res.Content == nil {
		res.Content = map[string]any{} // accepted with nothing: the required fields are missing
	}
	raw, err := json.Marshal(ep.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("the elicitation's requestedSchema: %v", err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the elicitation's requestedSchema: %v", err)
	}
	if err := resolved.Validate(res.Content); err != nil {
		return nil, fmt.Errorf("elicitation result content does not match requested schema: %v", err)
	}
	if err := resolved.ApplyDefaults(&res.Content); err != nil {
		return nil, fmt.Errorf("elicitation result: applying the schema's defaults: %v", err)
	}
	return json.Marshal(&res)
}

// record makes reqs this round's requests, unless the guest already asked
// something this run (it was stopped then; what it asks while stopping is
// not what it would ask once answered), and stops the guest. rt.mu is held.
func (rt *roundTrip) record(reqs mcp.InputRequestMap) {
	if rt.pending == nil {
		rt.pending = reqs
		rt.stop()
	}
}

// state returns this round's requests and their sealed requestState, or
// nil if the guest finished without needing input (or rt is nil: the
// request makes no round trips).
func (rt *roundTrip) state() (mcp.InputRequestMap, string, error) {
	if rt == nil {
		return nil, "", nil
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.pending == nil {
		return nil, "", nil
	}
	issued := map[string]string{}
	for id, req := range rt.pending {
		issued[id] = requestMethod(req)
	}
	nonce := make([]byte, 12)
	rand.Read(nonce)
	state, err := json.Marshal(reqstate.State{What: rt.what, Args: rt.argsKey(), Who: rt.who, Issued: issued,
		Answers: rt.answers, Nonce: base64.RawURLEncoding.EncodeToString(nonce),
		Expires: time.Now().Add(reqstate.Lifetime).Unix()})
	if err != nil || len(state) > reqstate.MaxBytes {
		return nil, "", errors.New("the answers gathered so far exceed the request-state limit")
	}
	return rt.pending, reqstate.Seal(rt.key, state), nil
}

// requestMethod is the MCP method of an input request.
func requestMethod(req mcp.InputRequest) string {
	switch req.(type) {
	case *mcp.ElicitParams:
		return methodElicit
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return methodCreateMessage
	}
	return methodListRoots
}

// result is the input-required tool result to return, or nil if the guest
// finished without needing input.
func (rt *roundTrip) result() (*mcp.CallToolResult, error) {
	reqs, state, err := rt.state()
	if err != nil || reqs == nil {
		return nil, err
	}
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}, nil
}

// known returns an answer the client already gave, by id.
func (rt *roundTrip) known(id string) (json.RawMessage, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	a, ok := rt.answers[id]
	return a, ok
}

// need records one request before any guest ran.
func (rt *roundTrip) need(id string, req mcp.InputRequest) {
	rt.mu.Lock()
	rt.record(mcp.InputRequestMap{id: req})
	rt.mu.Unlock()
}

// ask returns an input-required result for one request, before any guest
// ran (the roots a call's mounts depend on).
func (rt *roundTrip) ask(id string, req mcp.InputRequest) (*mcp.CallToolResult, error) {
	rt.need(id, req)
	res, err := rt.result()
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return res, nil
}

// Targets name what a round trip's requestState is bound to.
func toolTarget(name string) string { return fmt.Sprintf("tool %q", name) }

func promptTarget(name string) string { return fmt.Sprintf("prompt %q", name) }

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

// roundTripNeeded reports the input a 2026-07-28 read or prompt must ask
// the client for before it can finish, if any.
func (g *guestCall) roundTripNeeded() (mcp.InputRequestMap, string, error) {
	if g.cb == nil {
		return nil, "", nil
	}
	return g.cb.roundTrip.state()
}

// pendingOutcome is the input-required outcome of a run whose guest asked
// for what it was not given.
func pendingOutcome(rt *roundTrip) tasks.Outcome {
	rt.mu.Lock()
	pending := rt.pending
	rt.mu.Unlock()
	if pending == nil {
		return tasks.Outcome{}
	}
	b, err := json.Marshal(pending)
	var inputs map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(b, &inputs)
	}
	if err != nil {
		return tasks.Outcome{Err: &tasks.Error{Code: jsonrpc.CodeInternalError, Message: "could not encode the input requests: " + err.Error()}}
	}
	return tasks.Outcome{Inputs: inputs}
}
