package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// newResolver returns a resolver over a fresh store in dir (a new
// temporary folder if ""), with a lock file there.
func newResolver(t *testing.T, dir string, mod func(*Options)) *Resolver {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := OpenLock(filepath.Join(dir, LockName))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Store: st, Lock: lock, Credentials: func(context.Context, string) (auth.Credential, error) {
		return auth.EmptyCredential, nil
	}}
	if mod != nil {
		mod(&o)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPullByTagAndDigest(t *testing.T) {
	reg := ocitest.New(t)
	wasm := fixture.Bytes(t, "echo")
	desc := reg.PushWasm(t, "plugins/echo", "1.0", wasm)
	r := newResolver(t, "", nil)
	ctx := context.Background()

	src := "oci://" + reg.Host() + "/plugins/echo:1.0"
	res, err := r.Get(ctx, Request{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Wasm, wasm) || res.Digest != desc.Digest.String() || res.Pin != "new" || res.MediaType != MediaTypeWasm || res.Fetched == 0 {
		t.Fatalf("by tag: digest %s pin %s type %s fetched %d", res.Digest, res.Pin, res.MediaType, res.Fetched)
	}
	if d, ok := r.opts.Lock.Get(src); !ok || d != desc.Digest.String() {
		t.Fatalf("lock: %q %v", d, ok)
	}
	// By digest: no lock entry needed, served from the store.
	before := reg.Requests()
	res, err = r.Get(ctx, Request{Source: "oci://" + reg.Host() + "/plugins/echo@" + desc.Digest.String()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Wasm, wasm) || res.Pin != "source" || res.Fetched != 0 || reg.Requests() != before {
		t.Fatalf("by digest: pin %s fetched %d, %d requests", res.Pin, res.Fetched, reg.Requests()-before)
	}
	// By digest with a fresh store: fetched, and checked.
	r2 := newResolver(t, "", nil)
	res, err = r2.Get(ctx, Request{Source: "oci://" + reg.Host() + "/plugins/echo@" + desc.Digest.String()})
	if err != nil || !bytes.Equal(res.Wasm, wasm) || res.Fetched == 0 {
		t.Fatalf("by digest, fresh store: %v", err)
	}
	// The sha256 pin on the module's bytes is checked too.
	_, err = r.Get(ctx, Request{Source: src, SHA256: strings.Repeat("ab", 32)})
	if err == nil || !strings.Contains(err.Error(), "sha256 mismatch") || !strings.Contains(err.Error(), src) {
		t.Fatalf("sha256 pin: %v", err)
	}
	if _, err := r.Get(ctx, Request{Source: src, SHA256: strings.TrimPrefix(store.Digest(wasm), "sha256:")}); err != nil {
		t.Fatal(err)
	}
	// A tag that is not there.
	_, err = r.Get(ctx, Request{Source: "oci://" + reg.Host() + "/plugins/echo:2.0"})
	if err == nil || !strings.Contains(err.Error(), `tag "2.0" is not in`) {
		t.Fatalf("missing tag: %v", err)
	}
}

func TestMediaTypes(t *testing.T) {
	reg := ocitest.New(t)
	wasm := fixture.Bytes(t, "echo")
	r := newResolver(t, "", nil)
	ctx := context.Background()
	get := func(tag string) (*Result, error) {
		return r.Get(ctx, Request{Source: "oci://" + reg.Host() + "/p/x:" + tag})
	}
	reg.PushLayer(t, "p/x", "wasm-layer", wasm, MediaTypeWasmLayer, "application/vnd.example+type")
	if res, err := get("wasm-layer"); err != nil || res.MediaType != MediaTypeWasmLayer {
		t.Fatalf("%s: %v", MediaTypeWasmLayer, err)
	}
	// The OCI Wasm artifact as the CNCF layout writes it: a real config of
	// type application/vnd.wasm.config.v0+json, no artifactType.
	repo := reg.Repo("p/x")
	cfg := []byte(`{"architecture":"wasm","os":"wasip1","layerDigests":["` + store.Digest(wasm) + `"]}`)
	cd := repo.Put(cfg, "")
	ld := repo.Put(wasm, "")
	reg.PushManifest(t, "p/x", "artifact", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest,
		"config": map[string]any{"mediaType": MediaTypeWasmConfig, "digest": cd, "size": len(cfg)},
		"layers": []any{map[string]any{"mediaType": MediaTypeWasm, "digest": ld, "size": len(wasm)}}}, ocispec.MediaTypeImageManifest)
	if res, err := get("artifact"); err != nil || !bytes.Equal(res.Wasm, wasm) {
		t.Fatalf("wasm artifact: %v", err)
	}
	// An image holding /plugin.wasm (hyper-mcp's plugin images), behind an
	// index with a linux/amd64 entry and another platform.
	layer := tarGz(t, map[string][]byte{"etc/readme": []byte("hi"), "plugin.wasm": wasm, "lib/other.wasm": fixture.Bytes(t, "trap")})
	tl := repo.Put(layer, "")
	img := reg.PushManifest(t, "p/x", "", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest,
		"config": map[string]any{"mediaType": ocispec.MediaTypeImageConfig, "digest": cd, "size": len(cfg)},
		"layers": []any{map[string]any{"mediaType": ocispec.MediaTypeImageLayerGzip, "digest": tl, "size": len(layer)}}}, ocispec.MediaTypeImageManifest)
	reg.PushManifest(t, "p/x", "image", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex,
		"manifests": []any{
			map[string]any{"mediaType": ocispec.MediaTypeImageManifest, "digest": cd, "size": 10, "platform": map[string]string{"os": "linux", "architecture": "arm64"}},
			map[string]any{"mediaType": ocispec.MediaTypeImageManifest, "digest": img.Digest, "size": img.Size, "platform": map[string]string{"os": "linux", "architecture": "amd64"}},
		}}, ocispec.MediaTypeImageIndex)
	if res, err := get("image"); err != nil || !bytes.Equal(res.Wasm, wasm) {
		t.Fatalf("image: %v", err)
	}
	// Not a plugin: a layer of another type, two Wasm layers, a Wasm layer
	// that is not Wasm.
	reg.PushLayer(t, "p/x", "text", []byte("hello"), "text/plain", "application/vnd.example")
	if _, err := get("text"); err == nil || !strings.Contains(err.Error(), "no Wasm layer") || !strings.Contains(err.Error(), "text/plain") {
		t.Fatalf("text layer: %v", err)
	}
	reg.PushManifest(t, "p/x", "two", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest,
		"config": map[string]any{"mediaType": MediaTypeWasmConfig, "digest": cd, "size": len(cfg)},
		"layers": []any{map[string]any{"mediaType": MediaTypeWasm, "digest": ld, "size": len(wasm)},
			map[string]any{"mediaType": MediaTypeWasm, "digest": ld, "size": len(wasm)}}}, ocispec.MediaTypeImageManifest)
	if _, err := get("two"); err == nil || !strings.Contains(err.Error(), "2 Wasm layers") {
		t.Fatalf("two layers: %v", err)
	}
	reg.PushLayer(t, "p/x", "notwasm", []byte("#!/bin/sh\necho hi\n"), MediaTypeWasm, MediaTypeWasmConfig)
	if _, err := get("notwasm"); err == nil || !strings.Contains(err.Error(), "not a WebAssembly module") {
		t.Fatalf("not wasm: %v", err)
	}
}

func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestHostileRegistry: a registry that lies cannot get bytes run or fill
// the disk or memory.
func TestHostileRegistry(t *testing.T) {
	reg := ocitest.New(t)
	wasm := fixture.Bytes(t, "echo")
	desc := reg.PushWasm(t, "p/echo", "1", wasm)
	ctx := context.Background()
	src := "oci://" + reg.Host() + "/p/echo:1"

	t.Run("tampered layer", func(t *testing.T) {
		layer := store.Digest(wasm)
		tampered := append([]byte(nil), wasm...)
		tampered[len(tampered)-1] ^= 0xff
		repo := reg.Repo("p/echo")
		repo.Replace(digestOf(layer), tampered)
		defer repo.Replace(digestOf(layer), wasm)
		r := newResolver(t, "", nil)
		_, err := r.Get(ctx, Request{Source: src})
		if err == nil || !strings.Contains(err.Error(), "digest mismatch") || !strings.Contains(err.Error(), layer) ||
			!strings.Contains(err.Error(), store.Digest(tampered)) || !strings.Contains(err.Error(), src) {
			t.Fatalf("tampered layer: %v", err)
		}
		if r.Store().Has(layer) {
			t.Fatal("the tampered layer was stored")
		}
	})
	t.Run("tampered manifest", func(t *testing.T) {
		repo := reg.Repo("p/echo")
		orig, _, _ := repo.Get(desc.Digest)
		repo.Replace(desc.Digest, append(append([]byte(nil), orig...), ' '))
		defer repo.Replace(desc.Digest, orig)
		r := newResolver(t, "", nil)
		_, err := r.Get(ctx, Request{Source: "oci://" + reg.Host() + "/p/echo@" + desc.Digest.String()})
		if err == nil || !strings.Contains(err.Error(), "digest mismatch") || !strings.Contains(err.Error(), desc.Digest.String()) {
			t.Fatalf("tampered manifest: %v", err)
		}
	})
	t.Run("layer larger than declared", func(t *testing.T) {
		repo := reg.Repo("p/echo")
		layer := digestOf(store.Digest(wasm))
		repo.Replace(layer, append(append([]byte(nil), wasm...), make([]byte, 1<<20)...))
		defer repo.Replace(layer, wasm)
		reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
			if strings.Contains(r.URL.Path, "/blobs/") {
				w.Header().Set("Content-Length", "") // hide the size
				b, _, _ := repo.Get(layer)
				w.(http.Flusher).Flush()
				w.Write(b)
				return true
			}
			return false
		}
		defer func() { reg.Intercept = nil }()
		r := newResolver(t, "", nil)
		_, err := r.Get(ctx, Request{Source: src})
		if err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("oversized layer: %v", err)
		}
	})
	t.Run("over the size limit", func(t *testing.T) {
		r := newResolver(t, "", func(o *Options) { o.MaxSize = int64(len(wasm)) - 1 })
		before := reg.Requests()
		_, err := r.Get(ctx, Request{Source: src})
		if err == nil || !strings.Contains(err.Error(), "over the") || !strings.Contains(err.Error(), "limit") {
			t.Fatalf("size limit: %v", err)
		}
		// Refused from the descriptor: the layer was never asked for.
		if n := reg.Requests() - before; n > 2 {
			t.Fatalf("%d requests: the layer was fetched", n)
		}
	})
	t.Run("endless manifest", func(t *testing.T) {
		reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
			if strings.Contains(r.URL.Path, "/manifests/") && r.Method == http.MethodGet {
				w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
				chunk := bytes.Repeat([]byte(" "), 64<<10)
				for i := 0; i < 200; i++ { // 12.5 MiB
					if _, err := w.Write(chunk); err != nil {
						return true
					}
				}
				return true
			}
			return false
		}
		defer func() { reg.Intercept = nil }()
		r := newResolver(t, "", nil)
		_, err := r.Get(ctx, Request{Source: src})
		if err == nil || !strings.Contains(err.Error(), src) {
			t.Fatalf("endless manifest: %v", err)
		}
	})
	t.Run("stalled registry", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
			if strings.Contains(r.URL.Path, "/blobs/") {
				w.Header().Set("Content-Length", fmt.Sprint(len(wasm)))
				w.Write(wasm[:100])
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return true
			}
			return false
		}
		defer func() { reg.Intercept = nil }()
		r := newResolver(t, "", func(o *Options) { o.Timeout = 300 * time.Millisecond })
		_, err := r.Get(ctx, Request{Source: src})
		if err == nil || !strings.Contains(err.Error(), "gave up after 300ms") || !strings.Contains(err.Error(), src) {
			t.Fatalf("stalled: %v", err)
		}
	})
}

func TestCredentials(t *testing.T) {
	reg := ocitest.New(t)
	reg.PushWasm(t, "private/echo", "1", fixture.Bytes(t, "echo"))
	reg.User, reg.Password = "ci", "s3cret"
	src := "oci://" + reg.Host() + "/private/echo:1"
	ctx := context.Background()
	_, err := newResolver(t, "", nil).Get(ctx, Request{Source: src})
	if err == nil || !strings.Contains(err.Error(), src) {
		t.Fatalf("anonymous: %v", err)
	}
	// The Docker credential file, as `docker login` / `oras login` write it.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+reg.Host()+`":{"auth":"Y2k6czNjcmV0"}}}`), 0o600)
	t.Setenv("DOCKER_CONFIG", dir)
	r := newResolver(t, "", func(o *Options) { o.Credentials = nil })
	if _, err := r.Get(ctx, Request{Source: src}); err != nil {
		t.Fatalf("with the Docker credential file: %v", err)
	}
}

func digestOf(s string) digest.Digest { return digest.Digest(s) }
