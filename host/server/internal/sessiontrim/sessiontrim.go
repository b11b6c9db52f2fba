// Package sessiontrim bounds what an MCP session keeps of its initialize
// request, on both paths a request takes: decoded params (Params, applied by
// package server's middleware) and, for Streamable HTTP, the raw body before
// go-sdk reads it (Body, applied by package httpserve).
package sessiontrim

import (
	"encoding/json"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk keeps a session's initialize params for the session's life, as
// decoded: a client's 60 KiB of experimental capabilities cost ~300 KiB of
// maps per idle session. Params keeps what a session needs, each
// part bounded, before go-sdk stores it: the capabilities mcpwasm reads
// (roots, sampling, elicitation), the extensions a guest may be told of
// (up to sessionExtensionBytes of them, whole, in name order), experimental
// capabilities up to sessionExperimentalBytes, and the client's name,
// title, version and website clipped to sessionStringBytes. The params'
// _meta and descriptions are dropped. What it drops it logs at debug.
const (
	sessionExtensionBytes    = 2 << 10
	sessionExperimentalBytes = 512
	sessionStringBytes       = 256
	sessionIcons             = 4
)

// Params bounds p in place and names what it dropped.
func Params(p *mcp.InitializeParams) []string {
	var dropped []string
	if len(p.Meta) > 0 {
		p.Meta, dropped = nil, append(dropped, "_meta")
	}
	if ci := p.ClientInfo; ci != nil {
		for _, f := range []*string{&ci.Name, &ci.Title, &ci.Version, &ci.WebsiteURL} {
			*f = clip.Prefix(*f, sessionStringBytes)
		}
		ci.Description = ""
		ci.Icons = slices.DeleteFunc(ci.Icons, func(ic mcp.Icon) bool {
			return len(ic.Source) > sessionStringBytes*8 || len(ic.Sizes) > sessionIcons
		})
		if len(ci.Icons) > sessionIcons {
			ci.Icons, dropped = ci.Icons[:sessionIcons], append(dropped, "clientInfo.icons")
		}
	}
	if c := p.Capabilities; c != nil {
		var d []string
		c.Extensions, d = withinBytes(c.Extensions, sessionExtensionBytes, "capabilities.extensions.")
		dropped = append(dropped, d...)
		c.Experimental, d = withinBytes(c.Experimental, sessionExperimentalBytes, "capabilities.experimental.")
		dropped = append(dropped, d...)
	}
	return dropped
}

// withinBytes keeps the members of m, in name order, whose JSON fits in
// what is left of budget, and names the others (prefixed, clipped).
// It serves decoded params (any) and raw JSON members alike.
func withinBytes[V any](m map[string]V, budget int, prefix string) (map[string]V, []string) {
	if len(m) == 0 {
		return m, nil
	}
	var dropped []string
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	kept := map[string]V{}
	for _, k := range names {
		b, err := json.Marshal(m[k])
		if cost := len(k) + len(b); err == nil && cost <= budget {
			kept[k], budget = m[k], budget-cost
		} else if len(dropped) < 8 {
			dropped = append(dropped, prefix+clip.String(k, clip.Log))
		}
	}
	return kept, dropped
}

// Body is Params for an HTTP initialize request, applied
// to its body before go-sdk reads it: go-sdk v1.8.0 keeps the request's raw
// bytes as long as the session (a closure over the request it puts in
// RequestExtra), so bounding only the decoded params still cost the whole
// body per idle session. The params keep protocolVersion, and capabilities
// and clientInfo bounded as Params bounds them; anything else (_meta,
// unknown members) is dropped. A body that is not one initialize request
// is returned as it is.
func Body(body []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil || string(msg["method"]) != `"initialize"` {
		return body
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return body // go-sdk answers the bad params
	}
	kept := map[string]json.RawMessage{"protocolVersion": params["protocolVersion"]}
	if caps, ok := params["capabilities"]; ok {
		kept["capabilities"] = trimRawCapabilities(caps)
	}
	if info, ok := params["clientInfo"]; ok {
		kept["clientInfo"] = trimRawClientInfo(info)
	}
	for k, v := range kept {
		if v == nil {
			delete(kept, k)
		}
	}
	p, err1 := json.Marshal(kept)
	msg["params"] = p
	out, err2 := json.Marshal(msg)
	if err1 != nil || err2 != nil {
		return body
	}
	return out
}

// trimRawCapabilities bounds a capabilities object: extensions and
// experimental as withinBytes does, every other member kept if small.
func trimRawCapabilities(raw json.RawMessage) json.RawMessage {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil {
		return raw // not an object: go-sdk refuses it
	}
	out := map[string]json.RawMessage{}
	for k, v := range caps {
		switch k {
		case "extensions", "experimental":
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) != nil {
				continue
			}
			budget := sessionExtensionBytes
			if k == "experimental" {
				budget = sessionExperimentalBytes
			}
			keep, _ := withinBytes(m, budget, "")
			out[k], _ = json.Marshal(keep)
		default:
			if len(k)+len(v) <= sessionStringBytes*4 && len(out) < 16 {
				out[k] = v
			}
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// trimRawClientInfo keeps a clientInfo's name, title, version and website
// clipped, and its icons if they are few and small.
func trimRawClientInfo(raw json.RawMessage) json.RawMessage {
	var info map[string]json.RawMessage
	if json.Unmarshal(raw, &info) != nil {
		return raw
	}
	out := map[string]json.RawMessage{}
	for _, k := range []string{"name", "title", "version", "websiteUrl"} {
		var s string
		if v, ok := info[k]; ok && json.Unmarshal(v, &s) == nil {
			out[k], _ = json.Marshal(clip.Prefix(s, sessionStringBytes))
		} else if ok {
			out[k] = v // not a string: go-sdk refuses it
		}
	}
	if icons, ok := info["icons"]; ok && len(icons) <= sessionStringBytes*8 {
		out["icons"] = icons
	}
	b, _ := json.Marshal(out)
	return b
}
