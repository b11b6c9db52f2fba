package source

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// With tracing on, getting a plugin is a source.get span naming the
// source by scheme and host only (a URL's path or query may carry a
// token), with the digest got; a failure marks it failed.
func TestGetTraced(t *testing.T) {
	c, tp := tracingtest.Start(t)
	wasm := fixture.Bytes(t, "echo")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/echo.wasm" {
			w.Write(wasm)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	sum := strings.TrimPrefix(store.Digest(wasm), "sha256:")
	r := newResolver(t, t.TempDir(), func(o *Options) { o.HTTPClient = srv.Client() })
	ctx := context.Background()
	if _, err := r.Get(ctx, Request{Source: srv.URL + "/echo.wasm?token=s3cret", SHA256: sum}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, Request{Source: srv.URL + "/gone.wasm?token=s3cret", SHA256: strings.Repeat("ab", 32)}); err == nil {
		t.Fatal("a missing plugin was got")
	}
	tp.ForceFlush(ctx)
	spans := c.Find(func(s tracingtest.Span) bool { return s.Name == "source.get" })
	if len(spans) != 2 {
		t.Fatalf("source.get spans: %+v", c.Spans())
	}
	for i, s := range spans {
		if s.Attrs["mcpwasm.source"] != srv.URL {
			t.Errorf("span %d names the source %q, want %q", i, s.Attrs["mcpwasm.source"], srv.URL)
		}
		for k, v := range s.Attrs {
			if str, _ := v.(string); strings.Contains(str, "s3cret") {
				t.Errorf("span %d attribute %s holds the query: %q", i, k, str)
			}
		}
	}
	if spans[0].Attrs["mcpwasm.plugin.sha256"] != sum || spans[0].StatusError {
		t.Errorf("the get: %+v", spans[0])
	}
	if !spans[1].StatusError || spans[1].Attrs["error.type"] != "error" {
		t.Errorf("the failed get: %+v", spans[1])
	}
}

// An oci:// get is a source.get span naming the repository and tag, with
// its signature check a source.verify child: the policy, the state, and a
// refusal marked failed.
func TestVerifyTraced(t *testing.T) {
	c, tp := tracingtest.Start(t)
	reg := ocitest.New(t)
	ctx := context.Background()
	good, other := ecKey(t), ecKey(t)
	src, desc, _ := signedPlugin(t, reg, "traced/echo", "echo")
	signCosign(t, reg, "traced/echo", desc.Digest, good)
	if _, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, good)}); err != nil {
		t.Fatal(err)
	}
	if _, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, other)}); err == nil {
		t.Fatal("a wrong key verified")
	}
	tp.ForceFlush(ctx)
	gets := c.Find(func(s tracingtest.Span) bool { return s.Name == "source.get" })
	verifies := c.Find(func(s tracingtest.Span) bool { return s.Name == "source.verify" })
	if len(gets) != 2 || len(verifies) != 2 {
		t.Fatalf("spans: %+v", c.Spans())
	}
	want := "oci://" + reg.Host() + "/traced/echo:1"
	for i := range 2 {
		if gets[i].Attrs["mcpwasm.source"] != want || verifies[i].ParentSpanID != gets[i].SpanID ||
			verifies[i].Attrs["mcpwasm.verify"] != "required" {
			t.Errorf("get %d: %+v\nverify: %+v", i, gets[i], verifies[i])
		}
	}
	if verifies[0].Attrs["mcpwasm.signature.state"] != "verified" || verifies[0].StatusError {
		t.Errorf("the good signature's check: %+v", verifies[0])
	}
	if !verifies[1].StatusError || !gets[1].StatusError {
		t.Errorf("the wrong key's check is not marked failed: %+v / %+v", verifies[1], gets[1])
	}
}
