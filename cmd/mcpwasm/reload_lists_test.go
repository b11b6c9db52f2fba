package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReloadResourcesPromptsChunked: removing a plugin that serves
// resources and prompts withdraws them with resources/list_changed and
// prompts/list_changed; writing it back in chunks (as a slow copy does)
// serves it again, whole, with both notifications again.
func TestReloadResourcesPromptsChunked(t *testing.T) {
	dir := t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
	conf := filepath.Join(dir, "conformance.wasm")
	fixture.Copy(t, "conformance", conf)
	resChanged, promptChanged := make(chan struct{}, 100), make(chan struct{}, 100)
	opts := &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resChanged <- struct{}{} },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { promptChanged <- struct{}{} },
	}
	rs := startReload(t, opts, nil, dir)
	counts := func() (int, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := rs.cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatalf("resources/list: %v\nstderr:\n%s", err, rs.stderr)
		}
		p, err := rs.cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatalf("prompts/list: %v\nstderr:\n%s", err, rs.stderr)
		}
		return len(r.Resources), len(p.Prompts)
	}
	res0, pr0 := counts()
	if res0 == 0 || pr0 == 0 {
		t.Fatalf("conformance serves %d resources and %d prompts at start: want some of each", res0, pr0)
	}
	wait := func(what string, ch chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(60 * time.Second):
			t.Fatalf("no %s within a minute\nstderr:\n%s", what, rs.stderr)
		}
	}

	if err := os.Remove(conf); err != nil {
		t.Fatal(err)
	}
	wait("resources/list_changed after the removal", resChanged)
	wait("prompts/list_changed after the removal", promptChanged)
	rs.eventually("resources and prompts withdrawn", func() bool { r, p := counts(); return r == 0 && p == 0 })

	// Back, in 16 chunks with a pause between them.
	data, err := os.ReadFile(fixture.Path(t, "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(conf)
	if err != nil {
		t.Fatal(err)
	}
	step := len(data)/16 + 1
	for off := 0; off < len(data); off += step {
		if _, err := f.Write(data[off:min(off+step, len(data))]); err != nil {
			t.Fatal(err)
		}
		f.Sync()
		time.Sleep(20 * time.Millisecond)
	}
	f.Close()
	wait("resources/list_changed after the write", resChanged)
	wait("prompts/list_changed after the write", promptChanged)
	rs.eventually("resources and prompts served again", func() bool { r, p := counts(); return r == res0 && p == pr0 })
	rs.waitLog("plugin added", "conformance.wasm")
	if res, out := rs.call("echo_echo"); res.IsError {
		t.Fatalf("echo: %s", out)
	}
}
