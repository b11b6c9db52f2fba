package httpserve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
)

// POSTs in flight are capped per session and per principal (429 with
// Retry-After); a GET stream is not counted; a finished request frees its
// place.
func TestAccessConcurrencyCaps(t *testing.T) {
	srv := server.New(registry.New(), server.Options{})
	entered := make(chan struct{})
	release := make(chan struct{})
	h := protect(srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}), AccessOptions{Rate: -1, SessionConcurrency: 1, PrincipalConcurrency: 2})
	send := func(method, session string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/mcp", strings.NewReader("{}"))
		r.RemoteAddr = "192.0.2.1:5000"
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	var wg sync.WaitGroup
	block := func(method, session string) {
		wg.Add(1)
		go func() { defer wg.Done(); send(method, session) }()
		<-entered
	}
	block(http.MethodPost, "s1")
	if rec := send(http.MethodPost, "s1"); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), "session s1") {
		t.Fatalf("second request of session s1: %d %q", rec.Code, rec.Body.String())
	}
	block(http.MethodGet, "s1") // a stream: not counted
	block(http.MethodPost, "s2")
	if rec := send(http.MethodPost, "s3"); rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "ip:192.0.2.1") {
		t.Fatalf("third request of the principal: %d %q", rec.Code, rec.Body.String())
	}
	close(release)
	wg.Wait()
	release = make(chan struct{})
	block(http.MethodPost, "s1")
	close(release)
	wg.Wait()
}

// Serving beyond loopback needs authentication or --insecure-no-auth.
func TestCheckExposure(t *testing.T) {
	verifier := func() AccessOptions { return AccessOptions{Verifier: (&bearerStub{}).verify} }
	for _, tc := range []struct {
		addr string
		o    AccessOptions
		ok   bool
	}{
		{"127.0.0.1:8080", AccessOptions{}, true},
		{"[::1]:8080", AccessOptions{}, true},
		{"localhost:8080", AccessOptions{}, true},
		{"0.0.0.0:8080", AccessOptions{}, false},
		{"[::]:8080", AccessOptions{}, false},
		{"192.0.2.7:8080", AccessOptions{}, false},
		{"0.0.0.0:8080", AccessOptions{InsecureNoAuth: true}, true},
		{"0.0.0.0:8080", verifier(), true},
		{":8080", AccessOptions{}, true}, // Listen's default host is 127.0.0.1
	} {
		err := CheckExposure(tc.addr, tc.o)
		if (err == nil) != tc.ok {
			t.Errorf("%s %+v: %v", tc.addr, tc.o, err)
		}
		if err != nil && (!strings.Contains(err.Error(), tc.addr) || !strings.Contains(err.Error(), "--insecure-no-auth") ||
			!strings.Contains(err.Error(), "tokens_file")) {
			t.Errorf("message %q must name the address and both ways out", err)
		}
	}
}

type bearerStub struct{}

func (bearerStub) verify(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
	return nil, auth.ErrInvalidToken
}

// A session id is the client's: a refusal quotes it clipped, not whole.
func TestAccessRefusalClipsSessionID(t *testing.T) {
	srv := server.New(registry.New(), server.Options{})
	entered, release := make(chan struct{}), make(chan struct{})
	h := protect(srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}), AccessOptions{Rate: -1, SessionConcurrency: 1, PrincipalConcurrency: 8})
	sid := strings.Repeat("s", 100_000)
	send := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		r.RemoteAddr = "192.0.2.1:5000"
		r.Header.Set("Mcp-Session-Id", sid)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	done := make(chan struct{})
	go func() { send(); close(done) }()
	<-entered
	rec := send()
	close(release)
	<-done
	if rec.Code != http.StatusTooManyRequests || rec.Body.Len() > 1024 || !strings.Contains(rec.Body.String(), "…") {
		t.Fatalf("refusal: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}
