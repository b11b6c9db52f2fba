// Package capscache holds the client capabilities a request's guest is
// told, decoded and encoded once per distinct value.
//
// A guest is told the client's capabilities (context.client_capabilities),
// and the callbacks and mounts read them. go-sdk finds them in the
// session's initialize params, or, for a 2026-07-28 request, decodes them
// from the request's _meta on every call (ServerRequest.ClientCapabilities
// re-encodes the decoded map and decodes it again with its 32 KiB-buffer
// decoder: 32 KB per call), and each call then encoded them again for the
// guest. A client sends the same capabilities with every request, so
// Cache keeps both forms per distinct value: a 2026-07-28 request's
// by the value's content (capsKey), a session's by the capabilities'
// address, which the cache holds, so no other value can take it. What it
// returns is what go-sdk's ClientCapabilities returns and json.Marshal
// makes of it (TestCapsCacheMatchesSDK in package server); it is shared
// between requests and read only.
package capscache

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capsCacheEntries bounds each of the cache's maps; a full map is emptied.
const capsCacheEntries = 256

// capsKeyBytes bounds a cached value's key: larger capabilities are
// decoded per request, as go-sdk does.
const capsKeyBytes = 4 << 10

// Cache is the client capabilities a request's guest is told, decoded
// and encoded once per distinct value.
type Cache struct {
	mu      sync.Mutex
	byMeta  map[string]*capsEntry
	session map[*mcp.ClientCapabilities]json.RawMessage
}

type capsEntry struct {
	caps *mcp.ClientCapabilities
	raw  json.RawMessage
}

// Request is what go-sdk's ServerRequest offers for the lookup.
type Request interface {
	mcp.Request
	ClientCapabilities() *mcp.ClientCapabilities
}

// Get returns the client's capabilities for r, as r.ClientCapabilities
// does, and their JSON (nil when there are none).
func (c *Cache) Get(r Request) (*mcp.ClientCapabilities, json.RawMessage) {
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
func (c *Cache) fromMeta(r Request, v any) (*mcp.ClientCapabilities, json.RawMessage) {
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
	rv := reflect.ValueOf(v) // a nil pointer in an interface: reflect reads only its kind
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// sessionCaps are the capabilities of r's session's initialize params.
func sessionCaps(r mcp.Request) *mcp.ClientCapabilities {
	return SessionCaps(r.GetSession())
}

// SessionCaps are the capabilities a session declared in its initialize
// params, or nil.
func SessionCaps(s mcp.Session) *mcp.ClientCapabilities {
	if ss, ok := s.(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil {
			return ip.Capabilities
		}
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
