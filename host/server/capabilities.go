package server

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A guest is told the client's capabilities (context.client_capabilities),
// and the callbacks and mounts read them. go-sdk finds them in the
// session's initialize params, or, for a 2026-07-28 request, decodes them
// from the request's _meta on every call (ServerRequest.ClientCapabilities
// re-encodes the decoded map and decodes it again with its 32 KiB-buffer
// decoder: 32 KB per call), and each call then encoded them again for the
// guest. A client sends the same capabilities with every request, so
// capsCache keeps both forms per distinct value: a 2026-07-28 request's
// by the value's content (capsKey), a session's by the capabilities'
// address, which the cache holds, so no other value can take it. What it
// returns is what go-sdk's ClientCapabilities returns and json.Marshal
// makes of it (TestCapsCacheMatchesSDK); it is shared between requests and
// read only.

// capsCacheEntries bounds each of the cache's maps; a full map is emptied.
const capsCacheEntries = 256

// capsKeyBytes bounds a cached value's key: larger capabilities are
// decoded per request, as go-sdk does.
const capsKeyBytes = 4 << 10

// capsCache is the client capabilities a request's guest is told, decoded
// and encoded once per distinct value.
type capsCache struct {
	mu      sync.Mutex
	byMeta  map[string]*capsEntry
	session map[*mcp.ClientCapabilities]json.RawMessage
}

type capsEntry struct {
	caps *mcp.ClientCapabilities
	raw  json.RawMessage
}

// capsRequest is what go-sdk's ServerRequest offers for the lookup.
type capsRequest interface {
	mcp.Request
	ClientCapabilities() *mcp.ClientCapabilities
}

// get returns the client's capabilities for r, as r.ClientCapabilities
// does, and their JSON (nil when there are none).
func (c *capsCache) get(r capsRequest) (*mcp.ClientCapabilities, json.RawMessage) {
	if p := r.GetParams(); p != nil && !isNilPointer(p) {
		if v, ok := p.GetMeta()[mcp.MetaKeyClientCapabilities]; ok && v != nil {
			return c.fromMeta(r, v)
		}
	}
	caps := r.ClientCapabilities() // the session's
	if caps == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	raw, ok := c.session[caps]
	if !ok {
		raw = encodeCaps(caps)
		if len(c.session) >= capsCacheEntries || c.session == nil {
			c.session = make(map[*mcp.ClientCapabilities]json.RawMessage)
		}
		c.session[caps] = raw
	}
	return caps, raw
}

// fromMeta is get for a request whose _meta holds capabilities, v.
func (c *capsCache) fromMeta(r capsRequest, v any) (*mcp.ClientCapabilities, json.RawMessage) {
	key, fits := capsKey(make([]byte, 0, 256), v)
	if !fits {
		caps := r.ClientCapabilities()
		return caps, encodeCaps(caps)
	}
	c.mu.Lock()
	e := c.byMeta[string(key)]
	c.mu.Unlock()
	if e != nil {
		return e.caps, e.raw
	}
	caps := r.ClientCapabilities()
	if caps == nil || caps == sessionCaps(r) {
		// go-sdk could not decode v and fell back to the session's: not
		// an answer for v alone.
		return caps, encodeCaps(caps)
	}
	e = &capsEntry{caps: caps, raw: encodeCaps(caps)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byMeta) >= capsCacheEntries || c.byMeta == nil {
		c.byMeta = make(map[string]*capsEntry)
	}
	c.byMeta[string(key)] = e
	return e.caps, e.raw
}

// isNilPointer reports whether v is a nil pointer (a request whose params
// are absent).
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// sessionCaps are the capabilities of r's session's initialize params.
func sessionCaps(r mcp.Request) *mcp.ClientCapabilities {
	if ss, ok := r.GetSession().(*mcp.ServerSession); ok && ss != nil {
		return clientCapabilities(ss)
	}
	return nil
}

func encodeCaps(caps *mcp.ClientCapabilities) json.RawMessage {
	if caps == nil {
		return nil
	}
	raw, _ := json.Marshal(caps)
	return raw
}

// capsKey appends to b an encoding of the JSON value v (as decoded into
// any) that two values share only if they are equal: each value tagged
// with its type, strings and collections with their lengths, numbers as
// their bits, object members in name order. fits is false for a value of
// another Go type, or one whose key would pass capsKeyBytes.
func capsKey(b []byte, v any) (_ []byte, fits bool) {
	if len(b) > capsKeyBytes {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, 'z'), true
	case bool:
		if v {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, 'n'), math.Float64bits(v)), true
	case string:
		b = binary.AppendUvarint(append(b, 's'), uint64(len(v)))
		return append(b, v...), len(b)+len(v) <= capsKeyBytes
	case []any:
		b = binary.AppendUvarint(append(b, 'a'), uint64(len(v)))
		for _, x := range v {
			if b, fits = capsKey(b, x); !fits {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		slices.Sort(names)
		b = binary.AppendUvarint(append(b, 'o'), uint64(len(v)))
		for _, k := range names {
			if b, fits = capsKey(b, k); !fits {
				return b, false
			}
			if b, fits = capsKey(b, v[k]); !fits {
				return b, false
			}
		}
		return b, true
	}
	return b, false
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

func clientCapabilities(ss *mcp.ServerSession) *mcp.ClientCapabilities {
	ip := ss.InitializeParams()
	if ip == nil {
		return nil
	}
	return ip.Capabilities
}
