package httpserve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
)

// heapAfterGC is the live heap, in bytes.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestIdleSessionMemory: a session kept what its client sent in
// initialize, so 300 sessions opened with 60 KiB params held about 145 KiB
// each. A session keeps what it needs (capabilities, client info, each
// bounded): at most 16 KiB per idle session. 100 sessions are enough to
// see it (without the edge's sessiontrim.Body, 68 KB more each) and take a
// third of 300's time under -race.
func TestIdleSessionMemory(t *testing.T) {
	srv := server.New(registry.New(), server.Options{Name: "mem", Features: server.Features{Tools: true}})
	srv.AddNativeEcho()
	srv.Ready()
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{PrincipalSessions: 1000, Rate: -1}}) + "/mcp"
	const sessions = 100
	blob := strings.Repeat("x", 100)
	members := func(n int) string {
		var pad strings.Builder
		for pad.Len() < n {
			fmt.Fprintf(&pad, `"k%d":{"a":%q,"b":[1,2,3]},`, pad.Len(), blob)
		}
		return strings.TrimSuffix(pad.String(), ",")
	}
	big, small := members(56<<10), members(2000)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{"experimental":{` + big + `},"extensions":{"x":{` + small + `}}},` +
		`"clientInfo":{"name":"` + strings.Repeat("n", 1000) + `","version":"1"},"_meta":{` + small + `}}}`
	if len(body) < 60<<10 || len(body) > 64<<10 {
		t.Fatalf("the initialize body is %d bytes; want 60-64 KiB", len(body))
	}
	open := func(body string) int64 {
		before := heapAfterGC()
		for i := 0; i < sessions; i++ {
			req, _ := mcptest.Post(context.Background(), url, strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
				t.Fatalf("session %d: %d %s", i, resp.StatusCode, msg)
			}
		}
		http.DefaultClient.CloseIdleConnections()
		return (int64(heapAfterGC()) - int64(before)) / sessions
	}
	plain := open(fmt.Sprintf(initBody, ""))
	hostile := open(body)
	t.Logf("%d idle sessions each: %d bytes of heap with a plain initialize, %d with %d-byte params", sessions, plain, hostile, len(body))
	if plain > 16<<10 {
		t.Errorf("an idle session holds %d bytes; want at most 16 KiB", plain)
	}
	if hostile-plain > 16<<10 {
		t.Errorf("60 KiB of initialize params cost an idle session %d bytes more; want at most 16 KiB (what the caps allow)", hostile-plain)
	}
}
