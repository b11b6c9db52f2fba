package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
)

// roundRobin is the load balancer of the scale-out tests: it sends each
// request to the next replica in turn, with no session affinity, as a
// Kubernetes Service may. A replica that refuses connections is marked
// down and the request, which it never received, goes to the next one; a
// failure after the request was sent is answered 502, for the client to
// retry. It records which replica served each JSON-RPC request.
type roundRobin struct {
	backends []string
	client   *http.Client

	mu   sync.Mutex
	next int
	down map[int]bool
	log  []hop
}

// hop is one request as the balancer saw it.
type hop struct {
	Backend      int
	Method       string
	RequestState bool // params carried a requestState (the second half of a round trip)
}

func newRoundRobin(t testing.TB, backends ...string) (*roundRobin, string) {
	lb := &roundRobin{backends: backends, down: map[int]bool{},
		// No keep-alive: a replica that stops listening is seen at the
		// next dial, before anything is sent.
		client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	hs := httptest.NewServer(lb)
	t.Cleanup(hs.Close)
	return lb, hs.URL
}

// hops returns a copy of the requests seen so far.
func (lb *roundRobin) hops() []hop {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return append([]hop(nil), lb.log...)
}

func (lb *roundRobin) pick() (int, bool) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for range lb.backends {
		i := lb.next % len(lb.backends)
		lb.next++
		if !lb.down[i] {
			return i, true
		}
	}
	return 0, false
}

func (lb *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			RequestState string `json:"requestState"`
		} `json:"params"`
	}
	json.Unmarshal(body, &msg)
	for {
		i, ok := lb.pick()
		if !ok {
			http.Error(w, "no replica is up", http.StatusBadGateway)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, lb.backends[i], bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := lb.client.Do(req)
		// A refused dial, or a connection reset before any answer: a
		// replica that closed its listener resets the connections the
		// kernel had accepted for it but it never took, which it never
		// read. A balancer retries both elsewhere (Envoy's
		// connect-failure and reset).
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) {
			lb.mu.Lock()
			lb.down[i] = true
			lb.mu.Unlock()
			continue
		}
		if err != nil {
			http.Error(w, "replica failed: "+err.Error(), http.StatusBadGateway)
			return
		}
		lb.mu.Lock()
		lb.log = append(lb.log, hop{Backend: i, Method: msg.Method, RequestState: msg.Params.RequestState != ""})
		lb.mu.Unlock()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		copyFlushing(w, resp.Body)
		resp.Body.Close()
		return
	}
}

// copyFlushing copies an SSE or JSON body, flushing each chunk.
func copyFlushing(w http.ResponseWriter, r io.Reader) {
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			if f != nil {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
