// Package ocitest runs an in-process OCI registry (the distribution API's
// pull, push and referrers endpoints, over plain HTTP on loopback) for
// tests, packs plugins the way `oras push` does, and signs them the way
// cosign does.
//
// It is a test server, small on purpose: a conforming registry refuses to
// store what these tests must serve (a layer whose bytes are not its
// digest, a manifest that lies about its tag), so it lets a test rewrite
// any answer (Registry.Intercept) and counts requests (Registry.Requests).
package ocitest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
)

// Registry is an in-process OCI registry.
type Registry struct {
	srv      *httptest.Server
	mu       sync.Mutex
	repos    map[string]*Repo
	requests atomic.Int64
	// Intercept, if set, sees every request first; returning true means it
	// has answered.
	Intercept func(w http.ResponseWriter, r *http.Request) bool
	// User and Password, if set, are required (HTTP Basic) on every request.
	User, Password string
}

// Repo is one repository's content and tags. It implements oras-go's
// content.Pusher, so oras.PackManifest can write to it directly.
type Repo struct {
	mu    sync.Mutex
	blobs map[digest.Digest][]byte
	types map[digest.Digest]string // media type of each manifest
	tags  map[string]digest.Digest
}

// New starts a registry, closed when the test ends.
func New(t testing.TB) *Registry {
	reg := &Registry{repos: map[string]*Repo{}}
	reg.srv = httptest.NewServer(http.HandlerFunc(reg.serve))
	t.Cleanup(reg.srv.Close)
	return reg
}

// Host is the registry's host:port (on 127.0.0.1, spoken to over plain
// HTTP).
func (reg *Registry) Host() string { return strings.TrimPrefix(reg.srv.URL, "http://") }

// Close stops the registry: later requests fail to connect.
func (reg *Registry) Close() { reg.srv.Close() }

// Requests is the number of requests served so far.
func (reg *Registry) Requests() int64 { return reg.requests.Load() }

// Repo returns the repository name, creating it.
func (reg *Registry) Repo(name string) *Repo {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	r := reg.repos[name]
	if r == nil {
		r = &Repo{blobs: map[digest.Digest][]byte{}, types: map[digest.Digest]string{}, tags: map[string]digest.Digest{}}
		reg.repos[name] = r
	}
	return r
}

// Push stores content (oras-go's content.Pusher).
func (r *Repo) Push(_ context.Context, expected ocispec.Descriptor, rd io.Reader) error {
	b, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	if digest.FromBytes(b) != expected.Digest {
		return fmt.Errorf("ocitest: content is not %s", expected.Digest)
	}
	r.Put(b, expected.MediaType)
	return nil
}

// Put stores b and returns its digest; a manifest media type marks it as
// a manifest.
func (r *Repo) Put(b []byte, mediaType string) digest.Digest {
	d := digest.FromBytes(b)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.blobs[d] = append([]byte(nil), b...)
	if isManifestType(mediaType) {
		r.types[d] = mediaType
	}
	return d
}

// Exists reports whether the content is stored (content.ReadOnlyStorage,
// so oras.PackManifest skips what is there).
func (r *Repo) Exists(_ context.Context, d ocispec.Descriptor) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.blobs[d.Digest]
	return ok, nil
}

// Fetch returns stored content (content.ReadOnlyStorage).
func (r *Repo) Fetch(_ context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.blobs[d.Digest]
	if !ok {
		return nil, errdef.ErrNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// Tag points tag at the manifest d.
func (r *Repo) Tag(tag string, d digest.Digest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tags[tag] = d
}

// Untag removes a tag.
func (r *Repo) Untag(tag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tags, tag)
}

// Delete removes content.
func (r *Repo) Delete(d digest.Digest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.blobs, d)
	delete(r.types, d)
}

// Get returns stored content and, for a manifest, its media type.
func (r *Repo) Get(d digest.Digest) ([]byte, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.blobs[d]
	return b, r.types[d], ok
}

// Resolve returns the manifest a tag or digest names.
func (r *Repo) Resolve(ref string) (digest.Digest, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, err := digest.Parse(ref); err == nil {
		_, ok := r.types[d]
		return d, ok
	}
	d, ok := r.tags[ref]
	return d, ok
}

// Replace stores other bytes under an existing digest: a registry serving
// tampered content.
func (r *Repo) Replace(d digest.Digest, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.blobs[d] = append([]byte(nil), b...)
}

func isManifestType(t string) bool {
	switch t {
	case ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex,
		"application/vnd.docker.distribution.manifest.v2+json",
		"application/vnd.docker.distribution.manifest.list.v2+json":
		return true
	}
	return false
}

var (
	manifestPath  = regexp.MustCompile(`^/v2/(.+)/manifests/([^/]+)$`)
	blobPath      = regexp.MustCompile(`^/v2/(.+)/blobs/(sha256:[0-9a-f]{64})$`)
	uploadPath    = regexp.MustCompile(`^/v2/(.+)/blobs/uploads/([^/]*)$`)
	referrersPath = regexp.MustCompile(`^/v2/(.+)/referrers/(sha256:[0-9a-f]{64})$`)
)

func (reg *Registry) serve(w http.ResponseWriter, req *http.Request) {
	reg.requests.Add(1)
	if reg.User != "" {
		u, p, ok := req.BasicAuth()
		if !ok || u != reg.User || p != reg.Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="ocitest"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"login"}]}`, http.StatusUnauthorized)
			return
		}
	}
	if reg.Intercept != nil && reg.Intercept(w, req) {
		return
	}
	p := req.URL.Path
	switch {
	case p == "/v2/" || p == "/v2":
		w.WriteHeader(http.StatusOK)
	case referrersPath.MatchString(p):
		m := referrersPath.FindStringSubmatch(p)
		reg.referrers(w, req, reg.Repo(m[1]), digest.Digest(m[2]))
	case uploadPath.MatchString(p):
		m := uploadPath.FindStringSubmatch(p)
		reg.upload(w, req, m[1])
	case manifestPath.MatchString(p):
		m := manifestPath.FindStringSubmatch(p)
		reg.manifest(w, req, reg.Repo(m[1]), m[2])
	case blobPath.MatchString(p):
		m := blobPath.FindStringSubmatch(p)
		b, _, ok := reg.Repo(m[1]).Get(digest.Digest(m[2]))
		if !ok {
			notFound(w, "BLOB_UNKNOWN")
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Docker-Content-Digest", m[2])
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		if req.Method != http.MethodHead {
			w.Write(b)
		}
	default:
		notFound(w, "NAME_UNKNOWN")
	}
}

func notFound(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":"not found"}]}`, code)
}

func (reg *Registry) manifest(w http.ResponseWriter, req *http.Request, repo *Repo, ref string) {
	if req.Method == http.MethodPut {
		b, err := io.ReadAll(io.LimitReader(req.Body, 4<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mt := req.Header.Get("Content-Type")
		d := repo.Put(b, mt)
		if _, err := digest.Parse(ref); err != nil {
			repo.Tag(ref, d)
		}
		w.Header().Set("Docker-Content-Digest", d.String())
		w.WriteHeader(http.StatusCreated)
		return
	}
	d, ok := repo.Resolve(ref)
	if !ok {
		notFound(w, "MANIFEST_UNKNOWN")
		return
	}
	b, mt, _ := repo.Get(d)
	w.Header().Set("Content-Type", mt)
	w.Header().Set("Docker-Content-Digest", d.String())
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	if req.Method != http.MethodHead {
		w.Write(b)
	}
}

// upload takes a monolithic blob upload: POST, then PUT ?digest= with the
// bytes (what oras-go sends).
func (reg *Registry) upload(w http.ResponseWriter, req *http.Request, name string) {
	switch req.Method {
	case http.MethodPost:
		w.Header().Set("Location", "/v2/"+name+"/blobs/uploads/1")
		w.WriteHeader(http.StatusAccepted)
	case http.MethodPut:
		b, err := io.ReadAll(io.LimitReader(req.Body, 512<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		want := req.URL.Query().Get("digest")
		sum := sha256.Sum256(b)
		if want != "sha256:"+hex.EncodeToString(sum[:]) {
			http.Error(w, `{"errors":[{"code":"DIGEST_INVALID"}]}`, http.StatusBadRequest)
			return
		}
		reg.Repo(name).Put(b, "")
		w.Header().Set("Docker-Content-Digest", want)
		w.WriteHeader(http.StatusCreated)
	default:
		http.Error(w, "method", http.StatusMethodNotAllowed)
	}
}

// referrers answers the referrers API: an index of the manifests whose
// subject is d, filtered by ?artifactType=.
func (reg *Registry) referrers(w http.ResponseWriter, req *http.Request, repo *Repo, d digest.Digest) {
	filter := req.URL.Query().Get("artifactType")
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
	idx.SchemaVersion = 2
	repo.mu.Lock()
	for md, mt := range repo.types {
		var m ocispec.Manifest
		if mt != ocispec.MediaTypeImageManifest || json.Unmarshal(repo.blobs[md], &m) != nil || m.Subject == nil || m.Subject.Digest != d {
			continue
		}
		at := m.ArtifactType
		if at == "" {
			at = m.Config.MediaType
		}
		if filter != "" && at != filter {
			continue
		}
		idx.Manifests = append(idx.Manifests, ocispec.Descriptor{MediaType: mt, Digest: md, Size: int64(len(repo.blobs[md])),
			ArtifactType: at, Annotations: m.Annotations})
	}
	repo.mu.Unlock()
	b, _ := json.Marshal(idx)
	w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
	if filter != "" {
		w.Header().Set("OCI-Filters-Applied", "artifactType")
	}
	w.Write(b)
}

// PushWasm packs wasm as `oras push REF plugin.wasm:application/wasm
// --artifact-type application/vnd.wasm.config.v0+json` does (an OCI 1.1
// manifest, empty config, one layer), tags it and returns the manifest's
// descriptor.
func (reg *Registry) PushWasm(t testing.TB, repo, tag string, wasm []byte) ocispec.Descriptor {
	t.Helper()
	return reg.PushLayer(t, repo, tag, wasm, "application/wasm", "application/vnd.wasm.config.v0+json")
}

// PushLayer packs one layer of the given media type under an artifact type.
func (reg *Registry) PushLayer(t testing.TB, repo, tag string, layer []byte, mediaType, artifactType string) ocispec.Descriptor {
	t.Helper()
	r := reg.Repo(repo)
	ctx := context.Background()
	ld := content.NewDescriptorFromBytes(mediaType, layer)
	ld.Annotations = map[string]string{ocispec.AnnotationTitle: "plugin.wasm"}
	if err := r.Push(ctx, ld, bytes.NewReader(layer)); err != nil {
		t.Fatal(err)
	}
	md, err := oras.PackManifest(ctx, r, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{
		Layers: []ocispec.Descriptor{ld}, ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "2026-01-01T00:00:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	if tag != "" {
		r.Tag(tag, md.Digest)
	}
	return md
}

// PushManifest stores a manifest given as JSON (with its layers already
// stored) and tags it.
func (reg *Registry) PushManifest(t testing.TB, repo, tag string, m any, mediaType string) ocispec.Descriptor {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	r := reg.Repo(repo)
	d := r.Put(b, mediaType)
	if tag != "" {
		r.Tag(tag, d)
	}
	return ocispec.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(b))}
}

// MustResolve returns the digest a tag names, failing the test if none.
func (r *Repo) MustResolve(t testing.TB, tag string) string {
	t.Helper()
	d, ok := r.Resolve(tag)
	if !ok {
		t.Fatalf("ocitest: no tag %q", tag)
	}
	return d.String()
}
