package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol 2026-07-28 has no server-to-client requests. A server that needs
// the client (sampling, elicitation, roots) answers with an input-required
// result; the client fulfils the requests and calls again (SEP-2322,
// "multi round-trip requests").
//
// A guest cannot pause across round trips, so mcpwasm replays: the guest's
// k-th request of a kind in a call is keyed "<function>-<k>". When the guest
// makes a request whose answer is not known yet, the host stops the guest and
// returns that request to the client; on the retry the guest runs again from
// the start and gets the answers it already has, in order. Earlier answers
// travel in requestState. Guests therefore should make the same requests in
// the same order when re-run with the same arguments — which a tool that
// asks before acting naturally does.
type roundTrip struct {
	mu        sync.Mutex
	answers   map[string]json.RawMessage
	counts    map[string]int
	pendingID string
	pending   mcp.InputRequest
	stop      context.CancelFunc
	key       []byte // signs requestState
}

// maxRequestState bounds the answers carried between round trips.
const maxRequestState = 1 << 20

var errInputRequired = errors.New("input required from the client")

func newRoundTrip(params *mcp.CallToolParamsRaw, key []byte, stop context.CancelFunc) (*roundTrip, error) {
	rt := &roundTrip{answers: map[string]json.RawMessage{}, counts: map[string]int{}, stop: stop, key: key}
	if params.RequestState != "" {
		b, err := openState(key, params.RequestState)
		if err != nil || json.Unmarshal(b, &rt.answers) != nil {
			return nil, errors.New("invalid requestState: it was not issued by this server, or was altered")
		}
	}
	for id, resp := range params.InputResponses {
		b, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("inputResponses[%q]: %v", id, err)
		}
		rt.answers[id] = b
	}
	return rt, nil
}

// answer returns the known answer to the guest's next request of this kind,
// or records the request, stops the guest and returns errInputRequired.
func (rt *roundTrip) answer(function string, payload json.RawMessage) (json.RawMessage, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	id := fmt.Sprintf("%s-%d", function, rt.counts[function])
	rt.counts[function]++
	if a, ok := rt.answers[id]; ok {
		return a, nil
	}
	var req mcp.InputRequest
	switch function {
	case "create_message":
		p := &mcp.CreateMessageParams{}
		if err := json.Unmarshal(payload, p); err != nil {
			return nil, fmt.Errorf("create_message: invalid request: %v", err)
		}
		req = p
	case "create_elicitation":
		p := &mcp.ElicitParams{}
		if err := json.Unmarshal(payload, p); err != nil {
			return nil, fmt.Errorf("create_elicitation: invalid request: %v", err)
		}
		req = p
	case "list_roots":
		req = &mcp.ListRootsParams{}
	default:
		return nil, fmt.Errorf("unknown host function %q", function)
	}
	if rt.pending == nil {
		rt.pendingID, rt.pending = id, req
		rt.stop()
	}
	return nil, errInputRequired
}

// result is the input-required result to return, or nil if the guest
// finished without needing input.
func (rt *roundTrip) result() (*mcp.CallToolResult, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.pending == nil {
		return nil, nil
	}
	state, err := json.Marshal(rt.answers)
	if err != nil || len(state) > maxRequestState {
		return nil, errors.New("the answers gathered so far exceed the request-state limit")
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{rt.pendingID: rt.pending},
		RequestState:  sealState(rt.key, state),
	}, nil
}

// known returns an answer the client already gave, by id.
func (rt *roundTrip) known(id string) (json.RawMessage, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	a, ok := rt.answers[id]
	return a, ok
}

// ask returns an input-required result for one request, before any guest
// ran (the roots a call's mounts depend on).
func (rt *roundTrip) ask(id string, req mcp.InputRequest) (*mcp.CallToolResult, error) {
	rt.mu.Lock()
	rt.pendingID, rt.pending = id, req
	rt.mu.Unlock()
	res, err := rt.result()
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return res, nil
}

// requestState travels through the client, so it is signed: the client may
// answer a request as it likes, but cannot invent answers to requests the
// server never made, or replay another call's state.
func sealState(key, state []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(state)
	return base64.RawURLEncoding.EncodeToString(state) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func openState(key []byte, sealed string) ([]byte, error) {
	body, sig, ok := strings.Cut(sealed, ".")
	if !ok || len(body) > 2*maxRequestState {
		return nil, errors.New("malformed")
	}
	state, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, errors.New("malformed")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(state)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errors.New("bad signature")
	}
	return state, nil
}
