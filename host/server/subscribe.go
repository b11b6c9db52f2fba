package server

import (
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk keeps a session's resource subscriptions (and logs each URI) for
// as long as the session lives, and a template can match URIs without
// end, so a session's subscriptions are bounded: in number, and in the
// length of each URI.
const (
	maxSubscriptions = 256
	maxSubscribeURI  = 4096
)

// subscriptions are the URIs each session is subscribed to.
type subscriptions struct {
	mu        sync.Mutex
	bySession map[*mcp.ServerSession]map[string]bool
}

// add records a subscription, or refuses one past maxSubscriptions.
// Subscribing again to a URI is free.
func (s *subscriptions) add(ss *mcp.ServerSession, uri string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bySession == nil {
		s.bySession = map[*mcp.ServerSession]map[string]bool{}
	}
	set := s.bySession[ss]
	if set == nil {
		set = map[string]bool{}
		s.bySession[ss] = set
		go func() { // forget the session's when it ends
			ss.Wait()
			s.mu.Lock()
			delete(s.bySession, ss)
			s.mu.Unlock()
		}()
	}
	if !set[uri] && len(set) >= maxSubscriptions {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("resources/subscribe: this session has %d subscriptions, the most one may hold; unsubscribe from one first", len(set))}
	}
	set[uri] = true
	return nil
}

func (s *subscriptions) remove(ss *mcp.ServerSession, uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.bySession[ss], uri)
}
