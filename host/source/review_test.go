package source

import (
	"archive/tar"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	"oras.land/oras-go/v2/registry/remote/auth"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// TestPinOnlyWhatVerifies: a tag is pinned (or its pin moved) only once
// the plugin it names was got and passed its checks. A hostile registry
// that moves a tag to an unsigned manifest, or to one that is not a
// plugin, must not make pull --update forget the good pin, nor leave a
// first-time pin to bytes that never passed.
func TestPinOnlyWhatVerifies(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	key := ecKey(t)
	pol := policy(t, Required, key)
	dir := t.TempDir()

	src, good, _ := signedPlugin(t, reg, "pin/p", "echo")
	signCosign(t, reg, "pin/p", good.Digest, key)
	r := newResolver(t, dir, nil)
	if res, err := r.Get(ctx, Request{Source: src, Policy: pol}); err != nil || res.Pin != "new" {
		t.Fatalf("first pull: %v", err)
	}

	// The tag moves to an unsigned plugin: pull --update refuses it and
	// keeps the pin on the signed one.
	bad := reg.PushWasm(t, "pin/p", "1", fixture.Bytes(t, "trap"))
	up := newResolver(t, dir, func(o *Options) { o.Update = true })
	if _, err := up.Get(ctx, Request{Source: src, Policy: pol}); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("update to an unsigned plugin: %v", err)
	}
	if d, _ := up.opts.Lock.Get(src); d != good.Digest.String() {
		t.Fatalf("a refused update moved the pin to %s (the good pin was %s, the refused %s)", d, good.Digest, bad.Digest)
	}
	// Reopened from the file, as the next serve does: still the good one.
	again := newResolver(t, dir, nil)
	if res, err := again.Get(ctx, Request{Source: src, Policy: pol}); err != nil || res.Digest != good.Digest.String() {
		t.Fatalf("after the refused update: %v", err)
	}

	// First use of a tag whose manifest is not a plugin, or unsigned: no
	// pin is written.
	reg.PushLayer(t, "pin/q", "1", []byte("not wasm"), MediaTypeWasm, MediaTypeWasmConfig)
	reg.PushWasm(t, "pin/u", "1", fixture.Bytes(t, "echo"))
	fresh := newResolver(t, "", nil)
	for _, repo := range []string{"pin/q", "pin/u"} {
		s := "oci://" + reg.Host() + "/" + repo + ":1"
		if _, err := fresh.Get(ctx, Request{Source: s, Policy: pol}); err == nil {
			t.Fatalf("%s: served", repo)
		}
		if d, ok := fresh.opts.Lock.Get(s); ok {
			t.Fatalf("%s: pinned to %s though it was refused", repo, d)
		}
	}
	// Nor one whose module is not the sha256 the config pins.
	s := "oci://" + reg.Host() + "/pin/u:1"
	if _, err := fresh.Get(ctx, Request{Source: s, SHA256: strings.Repeat("0", 64)}); err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("sha256 pin: %v", err)
	}
	if d, ok := fresh.opts.Lock.Get(s); ok {
		t.Fatalf("pinned to %s though its sha256 did not match", d)
	}
}

// plainTar is an uncompressed tar of files.
func plainTar(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	tw.Close()
	return buf.Bytes()
}

// TestImageLayersShareOneBound: max_size bounds one plugin, as the README
// says, not each of an image's layers: an image of several layers, each
// under the bound but together over it, is refused before the layer that
// passes it is stored whole.
func TestImageLayersShareOneBound(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	wasm := fixture.Bytes(t, "echo")
	max := int64(2*len(wasm) + 4096)
	repo := reg.Repo("img/p")
	cfg := []byte("{}")
	cd := repo.Put(cfg, "")
	var layers []any
	var sizes int64
	for i, name := range []string{"a.txt", "b.txt", "c.txt"} {
		files := map[string][]byte{name: bytes.Repeat([]byte{'x'}, len(wasm))}
		if i == 2 {
			files["plugin.wasm"] = wasm
		}
		l := plainTar(t, files)
		if int64(len(l)) >= max {
			t.Fatalf("layer %d is %d bytes, not under the %d-byte bound", i, len(l), max)
		}
		sizes += int64(len(l))
		layers = append(layers, map[string]any{"mediaType": ocispec.MediaTypeImageLayer, "digest": repo.Put(l, ""), "size": len(l)})
	}
	reg.PushManifest(t, "img/p", "1", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest,
		"config": map[string]any{"mediaType": ocispec.MediaTypeImageConfig, "digest": cd, "size": len(cfg)},
		"layers": layers}, ocispec.MediaTypeImageManifest)
	src := "oci://" + reg.Host() + "/img/p:1"

	for _, s := range []string{src} {
		r := newResolver(t, "", func(o *Options) { o.MaxSize = max })
		res, err := r.Get(ctx, Request{Source: s})
		if err == nil {
			t.Fatalf("%s: served a plugin whose layers are %d bytes in all, over the %d-byte bound (fetched %d)", s, sizes, max, res.Fetched)
		}
		if !strings.Contains(err.Error(), "limit") || !strings.Contains(err.Error(), s) {
			t.Fatalf("error does not say the bound or name the source: %v", err)
		}
	}
	// Under a bound that holds them all, the image is served.
	r := newResolver(t, "", func(o *Options) { o.MaxSize = sizes })
	if res, err := r.Get(ctx, Request{Source: src}); err != nil || !bytes.Equal(res.Wasm, wasm) {
		t.Fatalf("within the bound: %v", err)
	}
}

// TestCredentialsNeverEchoed: a source with a login in it is refused by
// every scheme, and no message repeats the password (parsers that reject
// the reference echo what they reject).
func TestCredentialsNeverEchoed(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, s := range []string{
		"oci://user:s3cret@ghcr.io/acme/x:1",
		"oci://user:s3cret@ghcr.io/acme/x@" + d,
		"OCI://s3cret@ghcr.io/acme/x:1",
		"http://user:s3cret@example.com/a.wasm",
		"https://user:s3cret@example.com/a.wasm",
		"https://user:s3cret@exa mple.com/a.wasm",
		"https://user:s3cret@example.com/a.wasm#sha256=nothex",
	} {
		_, err := Parse(s)
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "credentials") {
			t.Errorf("Parse(%q): %v", s, err)
		}
		_, err = newResolver(t, "", nil).Get(context.Background(), Request{Source: s})
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Get(%q): %v", s, err)
		}
	}
	// A digest's @ is not a login.
	if _, err := Parse("oci://ghcr.io/acme/x@" + d); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("https://example.com/a.wasm?to=a@b"); err != nil {
		t.Fatal(err)
	}
}

// TestSignatureManifestsBounded: a registry cannot make the signature
// search read much more than the signatures: a referrer manifest (one
// bundle layer, about a kilobyte) listed as larger than
// maxSignatureManifest is not fetched; a good signature beside it still
// verifies.
func TestSignatureManifestsBounded(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	key := ecKey(t)
	src, desc, m := signedPlugin(t, reg, "b/p", "echo")
	repo := reg.Repo("b/p")
	reg.AttachBundle(t, "b/p", desc, ocitest.MessageBundle(t, key, m))
	bl := ocitest.MessageBundle(t, key, m)
	bigM := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ocitest.ArtifactBundle,
		Config:      ocispec.Descriptor{MediaType: ocispec.MediaTypeEmptyJSON, Digest: repo.Put([]byte("{}"), ""), Size: 2},
		Layers:      []ocispec.Descriptor{{MediaType: ocitest.ArtifactBundle, Digest: repo.Put(bl, ""), Size: int64(len(bl))}},
		Subject:     &desc,
		Annotations: map[string]string{"pad": strings.Repeat("x", 3<<20)}}
	bigM.SchemaVersion = 2
	big := reg.PushManifest(t, "b/p", "", bigM, ocispec.MediaTypeImageManifest)
	var askedBig int
	reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case strings.HasSuffix(r.URL.Path, "/manifests/"+big.Digest.String()):
			askedBig++
		}
		return false
	}
	res, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, key)})
	if err != nil || res.Signature.State != "verified" {
		t.Fatalf("a good bundle beside an oversized referrer: %v", err)
	}
	if askedBig != 0 {
		t.Fatalf("fetched a referrer manifest of %d bytes (over %d)", big.Size, maxSignatureManifest)
	}
}

// TestRedirectQueryNotEchoed: the query of a URL a server redirects to (a
// storage service's pre-signed URL carries its signature there) is not
// repeated in an error, which ends up in logs.
func TestRedirectQueryNotEchoed(t *testing.T) {
	wasm := fixture.Bytes(t, "echo")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://127.0.0.1:1/blob?X-Amz-Signature=s3cret", http.StatusFound)
	}))
	defer srv.Close()
	sum := strings.TrimPrefix(store.Digest(wasm), "sha256:")
	r := newResolver(t, "", func(o *Options) {
		o.HTTPClient = srv.Client()
		o.HTTPClient.CheckRedirect = checkRedirect
	})
	_, err := r.Get(context.Background(), Request{Source: srv.URL + "/p.wasm", SHA256: sum})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1:1/blob") {
		t.Fatalf("%v", err)
	}

	// The same from a registry's blob redirect.
	reg := ocitest.New(t)
	desc := reg.PushWasm(t, "r/p", "1", wasm)
	layer := store.Digest(wasm)
	reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/blobs/"+layer) {
			http.Redirect(w, r, "http://127.0.0.1:1/blob?X-Amz-Signature=s3cret", http.StatusTemporaryRedirect)
			return true
		}
		return false
	}
	_, err = newResolver(t, "", nil).Get(context.Background(), Request{Source: "oci://" + reg.Host() + "/r/p@" + desc.Digest.String()})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1:1/blob") {
		t.Fatalf("registry: %v", err)
	}
	// A tag, and the signature search, redirected the same way.
	reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/manifests/1") || strings.HasSuffix(r.URL.Path, ".sig") {
			http.Redirect(w, r, "http://127.0.0.1:1/m?X-Amz-Signature=s3cret", http.StatusTemporaryRedirect)
			return true
		}
		return false
	}
	for _, s := range []string{"oci://" + reg.Host() + "/r/p:1", "oci://" + reg.Host() + "/r/p@" + desc.Digest.String()} {
		_, err = newResolver(t, "", nil).Get(context.Background(), Request{Source: s, Policy: policy(t, Required, ecKey(t))})
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1:1/m") {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestImageLayersUnpackWithinOneBound: what an image's layers decompress
// to is bounded by max_size for the layers together, not for each: three
// small gzip layers, each unpacking to most of the bound, are refused.
func TestImageLayersUnpackWithinOneBound(t *testing.T) {
	reg := ocitest.New(t)
	wasm := fixture.Bytes(t, "echo")
	const max = 1 << 20
	repo := reg.Repo("bomb/p")
	cfg := []byte("{}")
	cd := repo.Put(cfg, "")
	var layers []any
	for i, name := range []string{"a.bin", "b.bin", "c.bin"} {
		files := map[string][]byte{name: make([]byte, max*6/10)}
		if i == 2 {
			files["plugin.wasm"] = wasm
		}
		l := tarGz(t, files)
		layers = append(layers, map[string]any{"mediaType": ocispec.MediaTypeImageLayerGzip, "digest": repo.Put(l, ""), "size": len(l)})
	}
	reg.PushManifest(t, "bomb/p", "1", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest,
		"config": map[string]any{"mediaType": ocispec.MediaTypeImageConfig, "digest": cd, "size": len(cfg)},
		"layers": layers}, ocispec.MediaTypeImageManifest)
	src := "oci://" + reg.Host() + "/bomb/p:1"
	_, err := newResolver(t, "", func(o *Options) { o.MaxSize = max }).Get(context.Background(), Request{Source: src})
	if err == nil || !strings.Contains(err.Error(), "once decompressed") {
		t.Fatalf("layers unpacking to 1.8x the bound: %v", err)
	}
	res, err := newResolver(t, "", func(o *Options) { o.MaxSize = 2 * max }).Get(context.Background(), Request{Source: src})
	if err != nil || !bytes.Equal(res.Wasm, wasm) {
		t.Fatalf("within the bound: %v", err)
	}
}

// TestRegistryLiesAboutDigests: a Docker-Content-Digest that names other
// bytes than those sent for a tag is refused, and a signature of the index
// covers the child manifest picked from it (its digest is in the index):
// a child served for the index's digest is refused.
func TestRegistryLiesAboutDigests(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	wasm := fixture.Bytes(t, "echo")
	good := reg.PushWasm(t, "l/p", "1", wasm)
	other := reg.PushWasm(t, "l/p", "2", fixture.Bytes(t, "trap"))
	reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/manifests/1") {
			b, _, _ := reg.Repo("l/p").Get(other.Digest) // the other manifest, under the good one's name
			w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
			w.Header().Set("Docker-Content-Digest", good.Digest.String())
			w.Write(b)
			return true
		}
		return false
	}
	_, err := newResolver(t, "", nil).Get(ctx, Request{Source: "oci://" + reg.Host() + "/l/p:1"})
	if err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("Docker-Content-Digest lie: %v", err)
	}
	reg.Intercept = nil

	// An index signed; the registry then serves another manifest for the
	// child's digest.
	key := ecKey(t)
	idx := reg.PushManifest(t, "l/p", "idx", map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex,
		"manifests": []any{map[string]any{"mediaType": ocispec.MediaTypeImageManifest, "digest": good.Digest, "size": good.Size,
			"platform": map[string]string{"os": "wasip1", "architecture": "wasm"}}}}, ocispec.MediaTypeImageIndex)
	signCosign(t, reg, "l/p", idx.Digest, key)
	src := "oci://" + reg.Host() + "/l/p:idx"
	if res, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err != nil || !bytes.Equal(res.Wasm, wasm) {
		t.Fatalf("signed index: %v", err)
	}
	otherBytes, _, _ := reg.Repo("l/p").Get(other.Digest)
	reg.Repo("l/p").Replace(good.Digest, otherBytes)
	if _, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("child swapped under a signed index: %v", err)
	}
}

// TestLockKeepsOtherProcessesPins: serve pins a new tag after pull
// --update (another process) moved a pin: the moved pin stays moved,
// instead of being written back to what serve read at its start.
func TestLockKeepsOtherProcessesPins(t *testing.T) {
	path := filepath.Join(t.TempDir(), LockName)
	d := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	serve, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Set("oci://r.io/a:1", d("1")); err != nil {
		t.Fatal(err)
	}
	pull, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pull.Set("oci://r.io/a:1", d("2")); err != nil { // pull --update
		t.Fatal(err)
	}
	if err := serve.Set("oci://r.io/b:1", d("3")); err != nil { // a reload adds a plugin
		t.Fatal(err)
	}
	// serve sees the pin pull moved, without a restart (a reload uses it).
	if got, _ := serve.Get("oci://r.io/a:1"); got != d("2") {
		t.Fatalf("serve still reads the pin it read at start: %s", got)
	}
	if err := pull.Set("oci://r.io/a:1", d("5")); err != nil {
		t.Fatal(err)
	}
	if got, _ := serve.Get("oci://r.io/a:1"); got != d("5") {
		t.Fatalf("serve does not see the second move: %s", got)
	}
	if err := pull.Set("oci://r.io/a:1", d("2")); err != nil {
		t.Fatal(err)
	}
	now, err := OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := now.Pins(); got["oci://r.io/a:1"] != d("2") || got["oci://r.io/b:1"] != d("3") {
		t.Fatalf("pins after both wrote: %v", got)
	}
	// A lock file made unreadable meanwhile is not overwritten.
	os.WriteFile(path, []byte("garbage\n"), 0o644)
	if err := serve.Set("oci://r.io/c:1", d("4")); err == nil {
		t.Fatal("overwrote a lock file it could not read")
	}
	if b, _ := os.ReadFile(path); string(b) != "garbage\n" {
		t.Fatalf("lock file rewritten: %q", b)
	}
}

// TestNoPlainHTTPBeyondAllowedHosts: a registry cannot make the client
// send a login, or any request, over plain HTTP to a host that is not one
// spoken to over plain HTTP: not a token realm (where the login goes), not
// a redirect target.
func TestNoPlainHTTPBeyondAllowedHosts(t *testing.T) {
	var leaked atomic.Int64
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := r.BasicAuth(); ok {
			leaked.Add(1)
		}
		w.Write([]byte(`{"token":"t"}`))
	}))
	defer tokens.Close()
	reg := ocitest.New(t)
	reg.PushWasm(t, "a/p", "1", fixture.Bytes(t, "echo"))
	reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+tokens.URL+`/token",service="r"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return true
		}
		return false
	}
	only := func(o *Options) {
		o.PlainHTTP = func(h string) bool { return h == reg.Host() } // the registry, not the token server
		o.Credentials = func(context.Context, string) (auth.Credential, error) {
			return auth.Credential{Username: "ci", Password: "s3cret"}, nil
		}
	}
	_, err := newResolver(t, "", only).Get(context.Background(), Request{Source: "oci://" + reg.Host() + "/a/p:1"})
	if leaked.Load() != 0 {
		t.Fatalf("the login was sent over plain HTTP to the token realm %s", tokens.URL)
	}
	if err == nil || !strings.Contains(err.Error(), "plain HTTP") {
		t.Fatalf("%v", err)
	}
}
