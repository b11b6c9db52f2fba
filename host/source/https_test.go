package source

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

func TestHTTPS(t *testing.T) {
	wasm := fixture.Bytes(t, "echo")
	other := fixture.Bytes(t, "trap")
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/echo.wasm":
			w.Write(wasm)
		case "/moved.wasm":
			http.Redirect(w, r, "/echo.wasm", http.StatusFound)
		case "/downgrade.wasm":
			http.Redirect(w, r, "http://"+r.Host+"/echo.wasm", http.StatusFound)
		case "/huge.wasm":
			w.Header().Set("Content-Length", fmt.Sprint(1<<30))
			w.Write(wasm)
		case "/endless.wasm":
			w.Write([]byte("\x00asm"))
			for i := 0; i < 1000; i++ {
				if _, err := w.Write(make([]byte, 64<<10)); err != nil {
					return
				}
			}
		case "/text.wasm":
			w.Write([]byte("<html>not found</html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	sum := strings.TrimPrefix(store.Digest(wasm), "sha256:")
	dir := t.TempDir()
	r := newResolver(t, dir, func(o *Options) {
		o.HTTPClient = srv.Client()
		o.HTTPClient.CheckRedirect = checkRedirect
		o.MaxSize = 4 << 20
	})
	ctx := context.Background()

	res, err := r.Get(ctx, Request{Source: srv.URL + "/echo.wasm", SHA256: sum})
	if err != nil || !bytes.Equal(res.Wasm, wasm) || res.Digest != "sha256:"+sum || res.Fetched != int64(len(wasm)) {
		t.Fatalf("get: %v", err)
	}
	// Pinned by its sha256: the second time comes from the store.
	n := hits.Load()
	if res, err = r.Get(ctx, Request{Source: srv.URL + "/echo.wasm", SHA256: sum}); err != nil || res.Fetched != 0 || hits.Load() != n {
		t.Fatalf("again: %v, %d requests", err, hits.Load()-n)
	}
	// Offline, with a fresh resolver over the same store.
	off := newResolver(t, dir, func(o *Options) { o.Offline = true })
	if _, err := off.Get(ctx, Request{Source: srv.URL + "/echo.wasm", SHA256: sum}); err != nil || hits.Load() != n {
		t.Fatalf("offline: %v", err)
	}
	fresh := func() *Resolver {
		return newResolver(t, "", func(o *Options) {
			o.HTTPClient = srv.Client()
			o.HTTPClient.CheckRedirect = checkRedirect
			o.MaxSize = 4 << 20
		})
	}
	if _, err := fresh().Get(ctx, Request{Source: srv.URL + "/moved.wasm", SHA256: sum}); err != nil {
		t.Fatalf("https redirect: %v", err)
	}
	otherSum := strings.TrimPrefix(store.Digest(other), "sha256:")
	for _, c := range []struct{ path, sha, want string }{
		{"/echo.wasm", "", "needs its sha256"},
		{"/echo.wasm", otherSum, "digest mismatch, expected sha256:" + otherSum + ", received sha256:" + sum},
		{"/downgrade.wasm", sum, "refusing a redirect from https"},
		{"/huge.wasm", sum, "over the 4194304-byte limit"},
		{"/endless.wasm", sum, "larger than 4194304 bytes"},
		{"/text.wasm", strings.TrimPrefix(store.Digest([]byte("<html>not found</html>")), "sha256:"), "not a WebAssembly module"},
		{"/missing.wasm", sum, "404 Not Found"},
	} {
		_, err := fresh().Get(ctx, Request{Source: srv.URL + c.path, SHA256: c.sha})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL+c.path) {
			t.Errorf("%s: %v; want %q", c.path, err, c.want)
		}
	}
	// Offline and not in the store.
	_, err = newResolver(t, "", func(o *Options) { o.Offline = true }).Get(ctx, Request{Source: srv.URL + "/echo.wasm", SHA256: sum})
	if !IsOffline(err) || !strings.Contains(err.Error(), "not in the store") {
		t.Fatalf("offline miss: %v", err)
	}
}

func TestHTTPSFragmentPin(t *testing.T) {
	wasm := fixture.Bytes(t, "echo")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Fragment != "" || r.URL.RawQuery != "" {
			http.Error(w, "fragment sent", 400)
			return
		}
		w.Write(wasm)
	}))
	defer srv.Close()
	sum := strings.TrimPrefix(store.Digest(wasm), "sha256:")
	r := newResolver(t, "", func(o *Options) { o.HTTPClient = srv.Client() })
	ctx := context.Background()
	if _, err := r.Get(ctx, Request{Source: srv.URL + "/a.wasm#sha256=" + sum}); err != nil {
		t.Fatal(err)
	}
	_, err := r.Get(ctx, Request{Source: srv.URL + "/a.wasm#sha256=" + sum, SHA256: strings.Repeat("0", 64)})
	if err == nil || !strings.Contains(err.Error(), "the URL pins") {
		t.Fatal(err)
	}
	if _, err := Parse(srv.URL + "/a.wasm#md5=abc"); err == nil {
		t.Fatal("other fragment accepted")
	}
}
