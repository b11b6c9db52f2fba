package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

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
