package httpserve_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// /readyz: 503 "loading" until Ready, 200 after (a failed plugin is named
// but does not make the server unready), 503 "draining" once the server is
// stopping; /healthz is 200 throughout; both refuse anything but GET/HEAD.
func TestReadiness(t *testing.T) {
	srv := server.New(registry.New(), server.Options{})
	h := httpserve.HealthHandler(srv)
	check := func(method, path string, code int, body string) {
		t.Helper()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		if w.Code != code || !strings.Contains(w.Body.String(), body) {
			t.Fatalf("%s %s: %d %s, want %d with %s", method, path, w.Code, w.Body, code, body)
		}
	}
	check("GET", "/readyz", http.StatusServiceUnavailable, `"status":"loading"`)
	check("GET", "/healthz", http.StatusOK, `"ok"`)
	srv.Ready()
	srv.LoadFailed("broken")
	check("GET", "/readyz", http.StatusOK, `"failed":["broken"]`)
	check("POST", "/healthz", http.StatusMethodNotAllowed, "")
	srv.Stopping()
	check("GET", "/readyz", http.StatusServiceUnavailable, `"status":"draining"`)
	check("HEAD", "/healthz", http.StatusOK, "")
}

// TestReloadingReadiness: while a hot reload is under way /readyz says so
// and stays ready (the server serves throughout); after it, the mark goes.
func TestReloadingReadiness(t *testing.T) {
	srv := server.New(registry.New(), server.Options{})
	srv.Ready()
	get := func() (int, string) {
		w := httptest.NewRecorder()
		httpserve.HealthHandler(srv).ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
		return w.Code, w.Body.String()
	}
	srv.Reloading(true)
	if code, body := get(); code != http.StatusOK || !strings.Contains(body, `"reloading":true`) {
		t.Fatalf("during a reload: %d %s", code, body)
	}
	if !srv.Readiness().Reloading {
		t.Fatal("Readiness().Reloading false during a reload")
	}
	srv.Reloading(false)
	if code, body := get(); code != http.StatusOK || strings.Contains(body, "reloading") {
		t.Fatalf("after the reload: %d %s", code, body)
	}
}
