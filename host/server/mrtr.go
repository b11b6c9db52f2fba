package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

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
	tool      string // the tool called, as exposed
	args      string // argsHash of the call's arguments
}

// maxRequestState bounds the answers carried between round trips.
const maxRequestState = 1 << 20

// stateLifetime bounds how long a client may take to answer.
const stateLifetime = 15 * time.Minute

// roundState is what requestState carries, signed: the answers gathered so
// far, and what binds them to one call — the tool, its arguments, the
// request ids issued in the last round, a nonce and an expiry.
type roundState struct {
	Tool    string                     `json:"tool"`
	Args    string                     `json:"args"`
	Issued  []string                   `json:"issued"`
	Answers map[string]json.RawMessage `json:"answers"`
	Nonce   string                     `json:"nonce"`
	Expires int64                      `json:"exp"` // Unix seconds
}

var errInputRequired = errors.New("input required from the client")

// newRoundTrip starts a 2026-07-28 call of tool: it accepts the client's
// inputResponses only to the requests its requestState says were issued,
// for this tool with these arguments, before the state expired.
func newRoundTrip(params *mcp.CallToolParamsRaw, tool string, key []byte, stop context.CancelFunc) (*roundTrip, error) {
	rt := &roundTrip{answers: map[string]json.RawMessage{}, counts: map[string]int{}, stop: stop, key: key,
		tool: tool, args: argsHash(params.Arguments)}
	issued := map[string]bool{}
	if params.RequestState != "" {
		b, err := openState(key, params.RequestState)
		var st roundState
		if err != nil || json.Unmarshal(b, &st) != nil {
			return nil, errors.New("invalid requestState: it was not issued by this server, or was altered")
		}
		switch {
		case st.Tool != tool:
			return nil, fmt.Errorf("invalid requestState: it was issued for tool %q, not %q", st.Tool, tool)
		case st.Args != rt.args:
			return nil, errors.New("invalid requestState: it was issued for other arguments; retry with the arguments of the first call")
		case time.Now().Unix() > st.Expires:
			return nil, errors.New("invalid requestState: it expired; call the tool again without it")
		}
		for id, a := range st.Answers {
			rt.answers[id] = a
		}
		for _, id := range st.Issued {
			issued[id] = true
		}
	}
	if len(params.InputResponses) > 0 && params.RequestState == "" {
		return nil, errors.New("inputResponses without requestState: answers are accepted only to requests this server made, with the requestState it returned")
	}
	for id, resp := range params.InputResponses {
		if !issued[id] {
			return nil, fmt.Errorf("inputResponses[%q]: this server did not ask for it", id)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("inputResponses[%q]: %v", id, err)
		}
		rt.answers[id] = b
	}
	return rt, nil
}

// argsHash identifies a call's arguments whatever their key order or
// spacing.
func argsHash(args json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	canonical := []byte("{}")
	if d.Decode(&v) == nil && v != nil {
		canonical, _ = json.Marshal(v)
	}
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:])
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
	nonce := make([]byte, 12)
	rand.Read(nonce)
	state, err := json.Marshal(roundState{Tool: rt.tool, Args: rt.args, Issued: []string{rt.pendingID},
		Answers: rt.answers, Nonce: base64.RawURLEncoding.EncodeToString(nonce),
		Expires: time.Now().Add(stateLifetime).Unix()})
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

// guestResult keeps what a guest may say in a tool result: content,
// structured content, isError and its own _meta keys. inputRequests,
// requestState and resultType are the server's to set (go-sdk would send a
// guest's inputRequests to the client as the server's own requests), and
// _meta keys under a reserved prefix are MCP's.
func guestResult(res *mcp.CallToolResult) *mcp.CallToolResult {
	return &mcp.CallToolResult{Meta: guestMeta(res.Meta), Content: res.Content,
		StructuredContent: res.StructuredContent, IsError: res.IsError}
}

// guestPrompt and guestResource do the same for prompts/get and
// resources/read results.
func guestPrompt(res *mcp.GetPromptResult) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Meta: guestMeta(res.Meta), Description: res.Description, Messages: res.Messages}
}

func guestResource(res *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Meta: guestMeta(res.Meta), Cacheable: res.Cacheable, Contents: res.Contents}
}

func guestMeta(m mcp.Meta) mcp.Meta {
	var out mcp.Meta
	for k, v := range m {
		if !reservedMetaKey(k) {
			if out == nil {
				out = mcp.Meta{}
			}
			out[k] = v
		}
	}
	return out
}

// reservedMetaKey reports whether a _meta key's prefix may be reserved for
// MCP. The specification reserves any prefix of zero or more labels, then
// "modelcontextprotocol" or "mcp", then any label (modelcontextprotocol.io/,
// mcp.dev/, api.modelcontextprotocol.org/, tools.mcp.com/), and uses
// reverse-DNS keys itself (io.modelcontextprotocol/): a prefix with either
// label anywhere is treated as reserved, which strips a little more from
// guest output than the letter of the rule, never less.
func reservedMetaKey(k string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	for _, l := range labels {
		if strings.EqualFold(l, "modelcontextprotocol") || strings.EqualFold(l, "mcp") {
			return true
		}
	}
	return false
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
