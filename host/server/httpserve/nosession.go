package httpserve

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stateful server's POST without Mcp-Session-Id opens a session for
// itself in go-sdk v1.8.0; a request other than initialize (and the few
// go-sdk allows before it) then fails inside that session with "method %q
// is invalid during session initialization", sent as HTTP 200 and a
// JSON-RPC error whose code is 0 (go-sdk#976). The transport specification
// asks for 400 Bad Request. The edge answers it before go-sdk: 400 with
// Invalid Request (-32600), the same code stdio answers a request before
// initialize with.

// beforeSession are the calls go-sdk answers on a session that has not
// finished initialize (server.go, ServerSession.handle); server/discover
// is answered there too (Method not found before 2026-07-28).
var beforeSession = map[string]bool{"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "server/discover": true}

// needsSession returns the method and id of a call in body that go-sdk
// would refuse without a session, or "" when go-sdk answers it properly: a
// notification or a response, a call allowed before initialize, a
// 2026-07-28 call (its _meta names the protocol version: it needs no
// session), a batch, or a body that is not one JSON-RPC call (go-sdk
// answers the parse error).
func needsSession(body []byte) (method string, id json.RawMessage) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" || beforeSession[m.Method] {
		return "", nil
	}
	var version string
	if raw, ok := m.Params.Meta[mcp.MetaKeyProtocolVersion]; ok && json.Unmarshal(raw, &version) == nil && version >= "2026-07-28" {
		return "", nil
	}
	return m.Method, m.ID
}

// noSessionMessage is the answer's message.
func noSessionMessage(method string) string {
	return fmt.Sprintf("Bad Request: %q needs a session: send initialize first, then the Mcp-Session-Id header its answer carries on every request", method)
}
