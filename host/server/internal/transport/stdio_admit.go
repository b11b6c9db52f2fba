package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mcpwasm/mcpwasm/host/internal/clip"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeBusy answers a request refused because too many are in flight
// (JSON-RPC's implementation-defined server error range; the HTTP
// transport's busy answer uses it too).
const CodeBusy = -32000

// batchesEndIn is the first protocol version without JSON-RPC batches.
const batchesEndIn = "2025-06-18"

// handleLine checks one line and hands what is valid to go-sdk; false when
// the connection closed meanwhile.
func (c *stdioConn) handleLine(line []byte, n int) bool {
	if !json.Valid(line) {
		c.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error on stdin line %d: %s", n, parseErrorText(line)))
		return true
	}
	switch bytes.TrimLeft(line, " \t\r")[0] {
	case '{':
		msg, reply := c.admit(line, nil, n)
		if reply != nil {
			c.logger.Warn("stdio: refused a message", "reply", clip.Bytes(reply, clip.Log))
			c.writeLine(reply)
		}
		if msg != nil {
			return c.deliver(msg)
		}
		return true
	case '[':
		return c.admitBatch(line, n)
	default:
		c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d: a message is a JSON object or a batch (array), not %s",
			n, jsonKind(line)))
		return true
	}
}

// admitBatch checks a JSON-RPC batch. Invalid elements are answered in the
// batch's reply array alongside go-sdk's replies to the valid ones.
func (c *stdioConn) admitBatch(line []byte, n int) bool {
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil {
		c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d: %v", n, err))
		return true
	}
	if len(elems) == 0 {
		c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d: an empty batch", n))
		return true
	}
	c.mu.Lock()
	proto := c.protocol
	c.mu.Unlock()
	if proto >= batchesEndIn {
		c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d: JSON-RPC batches are not part of MCP %s", n, proto))
		return true
	}
	b := &stdioBatch{}
	var msgs []jsonrpc.Message
	for i, e := range elems {
		var msg jsonrpc.Message
		var reply []byte
		if e[0] == '{' {
			msg, reply = c.admit(e, b, n)
		} else {
			reply = errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d, batch element %d: not a JSON object but %s", n, i+1, jsonKind(e)))
		}
		if reply != nil {
			c.logger.Warn("stdio: refused a batch element", "reply", clip.Bytes(reply, clip.Log))
			c.mu.Lock()
			b.parts = append(b.parts, reply)
			c.mu.Unlock()
		}
		if msg != nil {
			msgs = append(msgs, msg)
		}
	}
	c.mu.Lock()
	b.sealed = true
	var out []byte
	if b.pending == 0 && len(b.parts) > 0 {
		out = joinBatch(b.parts)
	}
	c.mu.Unlock()
	if out != nil {
		c.writeLine(out)
	}
	for _, m := range msgs {
		if !c.deliver(m) {
			return false
		}
	}
	return true
}

// admit checks one JSON-RPC object. It returns the message for go-sdk, or
// the error reply to send instead; neither for a message to drop (a reply
// to a request the server never made, or a cancellation of nothing).
func (c *stdioConn) admit(data []byte, b *stdioBatch, n int) (jsonrpc.Message, []byte) {
	members, err := parseObject(data)
	if err != nil {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d: %v", n, err))
	}
	idRaw, _ := lookup(members, "id")
	class, id := classifyID(idRaw)
	var replyID json.RawMessage // null unless the id is one a reply can carry
	if class == idKept || class == idMapped {
		replyID = idRaw
	}
	invalid := func(format string, args ...any) (jsonrpc.Message, []byte) {
		return nil, errorReply(replyID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request on stdin line %d: ", n)+fmt.Sprintf(format, args...))
	}
	if v, ok := lookup(members, "jsonrpc"); !ok || string(v) != `"2.0"` {
		var s string
		if !ok || json.Unmarshal(v, &s) != nil || s != "2.0" {
			return invalid(`"jsonrpc" must be "2.0"`)
		}
	}
	methodRaw, hasMethod := lookup(members, "method")
	if !hasMethod {
		return c.admitResponse(data, members, class, invalid)
	}
	var method string
	if json.Unmarshal(methodRaw, &method) != nil {
		return invalid(`"method" must be a string`)
	}
	switch class {
	case idNull:
		return invalid("the id must be a string or an integer, not null")
	case idInvalid:
		return invalid("the id must be a string or an integer")
	case idAbsent: // a notification
		if method == "notifications/cancelled" {
			var ok bool
			if data, ok = c.mapCancel(members, data); !ok {
				return nil, nil
			}
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			return invalid("%v", err)
		}
		return msg, nil
	}

	// A call.
	c.mu.Lock()
	_, dup := c.inflight[id]
	busy := ""
	switch {
	// The requests not yet answered are those in c.inflight, which Write
	// forgets before the reply leaves (as it gives back their bytes):
	// c.pending drops only after the write, so a client that sends as soon
	// as it reads a reply would otherwise find that request still counted.
	case len(c.inflight) >= c.opts.MaxInFlight:
		busy = fmt.Sprintf("%d requests are already in flight on stdin", len(c.inflight))
	case c.flightBytes+int64(len(data)) > c.opts.MaxInFlightBytes:
		busy = fmt.Sprintf("the requests in flight on stdin hold %d bytes, and this one's %d would pass the limit of %d",
			c.flightBytes, len(data), c.opts.MaxInFlightBytes)
	}
	if class == idMapped {
		_, dup = c.byRaw[string(idRaw)]
		if !dup {
			c.seq++
			id = mustID(internalIDPrefix + strconv.FormatUint(c.seq, 10))
		}
	}
	c.mu.Unlock()
	if dup {
		return invalid("the id %s is already used by a request in flight", clip.Bytes(idRaw, clip.Log))
	}
	if busy != "" {
		return nil, errorReply(replyID, CodeBusy, fmt.Sprintf(
			"the server is busy: %s; the request on line %d was not run (retry when one is answered)", busy, n))
	}
	if class == idMapped {
		enc, _ := marshalNoEscape(id.Raw())
		data = rebuild(members, "id", enc)
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return invalid("%v", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.ID != id {
		return invalid("not a request") // cannot happen: it has a method and an id
	}
	// The id as sent, for the guest's context.id (see reqid.go).
	req.Extra = &mcp.RequestExtra{Header: http.Header{idHeader: {string(idRaw)}}} // idHeader is canonical

	f := &flight{method: method, batch: b, bytes: int64(len(data))}
	c.mu.Lock()
	if method == "initialize" {
		c.protocol = requestedProtocol(members)
	}
	if class == idMapped {
		f.raw = append(json.RawMessage(nil), idRaw...)
		c.byRaw[string(idRaw)] = id
	}
	c.inflight[id] = f
	c.pending++
	c.flightBytes += f.bytes
	if b != nil {
		b.pending++
	}
	c.mu.Unlock()
	return msg, nil
}

// admitResponse checks a message without a method: a client's reply to a
// request of the server's, whose ids are integers.
func (c *stdioConn) admitResponse(data []byte, members []member, class idClass,
	invalid func(string, ...any) (jsonrpc.Message, []byte)) (jsonrpc.Message, []byte) {
	_, hasResult := lookup(members, "result")
	_, hasError := lookup(members, "error")
	switch {
	case !hasResult && !hasError:
		return invalid(`a message needs a "method", or an id and a "result" or an "error"`)
	case class == idMapped:
		c.logger.Warn("stdio: dropped a reply to a request the server never sent", "id", clip.Bytes(lookupOr(members, "id"), clip.Log))
		return nil, nil // go-sdk would read 1.5 as 1, the id of another request
	case class != idKept:
		return invalid("a reply needs the string or integer id of the request it answers")
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return invalid("%v", err)
	}
	return msg, nil
}

// mapCancel points a cancellation of a mapped id at the internal id. false:
// drop it, it names no request in flight and go-sdk would misread the id.
func (c *stdioConn) mapCancel(members []member, data []byte) ([]byte, bool) {
	params, _ := lookup(members, "params")
	if len(params) == 0 || params[0] != '{' {
		return data, true
	}
	pm, err := parseObject(params)
	if err != nil {
		return data, true
	}
	rid, _ := lookup(pm, "requestId")
	if class, _ := classifyID(rid); class != idMapped {
		return data, true
	}
	c.mu.Lock()
	internal, ok := c.byRaw[string(rid)]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	enc, _ := marshalNoEscape(internal.Raw())
	return rebuild(members, "params", rebuild(pm, "requestId", enc)), true
}

func lookupOr(ms []member, key string) json.RawMessage {
	v, _ := lookup(ms, key)
	return v
}

// jsonKind names the type of a JSON value, for error messages.
func jsonKind(v []byte) string {
	switch bytes.TrimLeft(v, " \t\r\n")[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "a number"
}

// requestedProtocol is the version an initialize request asks for: what the
// session will speak, or go-sdk's latest (also past batches) if it does not
// know it. The reply's version replaces it.
func requestedProtocol(members []member) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(lookupOr(members, "params"), &p)
	return p.ProtocolVersion
}
