package server_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/internal/transport/stdiotest"
	"github.com/mcpwasm/mcpwasm/plugins/builtin"
)

var (
	fuzzOnce sync.Once
	fuzzSrv  *server.Server
	fuzzErr  error
	fuzzSeq  atomic.Uint64
)

// fuzzServer is the real server wiring with the built-in mdtools plugin
// (AssemblyScript, the smallest) and native_echo, shared by every input:
// each input is a session of its own, as each stdio client is.
func fuzzServer(t testing.TB) *server.Server {
	fuzzOnce.Do(func() {
		ctx := context.Background()
		rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache")})
		if err != nil {
			fuzzErr = err
			return
		}
		reg := registry.New()
		srv := server.New(reg, server.Options{Name: "fuzz", Features: server.Features{Tools: true, Resources: true, Prompts: true, Completions: true}})
		for _, b := range builtin.Plugins() {
			if b.Name != "mdtools" {
				continue
			}
			cfg := plugin.Config{Name: b.Name, Source: "built-in " + b.File, Wasm: b.Wasm, Timeout: 2 * time.Second}
			p, err := rt.Load(ctx, cfg)
			if err != nil {
				fuzzErr = err
				return
			}
			e, err := reg.Add(ctx, p, registry.AddOptions{})
			if err != nil {
				fuzzErr = err
				return
			}
			srv.AddEntry(e)
		}
		srv.AddNativeEcho()
		srv.Ready()
		fuzzSrv = srv
	})
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzSrv
}

// FuzzServerStrings puts a fuzzed string into each slot of
// stdiotest.StringSlots and checks that the session survives, as package
// transport's FuzzStdioStrings does, but through this server's handlers:
// outside fuzzers ended sessions through such strings (a DEL in a
// resources/read URI).
//
//	go test -run '^$' -fuzz FuzzServerStrings -fuzztime 10m -parallel 1 ./host/server/
func FuzzServerStrings(f *testing.F) {
	for i := range stdiotest.StringSlots {
		for _, s := range stdiotest.SlotSeeds {
			f.Add(uint8(i*2+1), s)
			f.Add(uint8(i*2), s)
		}
	}
	f.Fuzz(func(t *testing.T, slot uint8, s string) {
		line, skip := stdiotest.SlotLine(slot, s)
		if skip {
			t.Skip("a raw line break splits the line; package transport's FuzzStdio covers broken lines")
		}
		stdiotest.Session(t, fuzzServer(t).ServeStdio, []byte(line), "native_echo", "mdtools_toc")
	})
}
