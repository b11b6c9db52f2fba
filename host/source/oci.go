package source

import (
	"context"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/mcpwasm/mcpwasm/host/source/store"
)

// Manifest media types asked for and understood.
const (
	mediaOCIManifest    = ocispec.MediaTypeImageManifest
	mediaOCIIndex       = ocispec.MediaTypeImageIndex
	mediaDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
)

// repository is the oras-go client for ref's repository.
func (r *Resolver) repository(ref Ref) *remote.Repository {
	return &remote.Repository{
		Client:               r.auth,
		Reference:            registry.Reference{Registry: ref.Registry, Repository: ref.Repository},
		PlainHTTP:            r.opts.PlainHTTP(ref.Registry),
		ManifestMediaTypes:   []string{mediaOCIManifest, mediaOCIIndex, mediaDockerManifest, mediaDockerList},
		MaxMetadataBytes:     maxManifest,
		ReferrerListMaxPages: 4,
		TagListMaxPages:      1,
	}
}

// getOCI gets an oci:// source: the manifest digest from the source, the
// lock or the registry; the manifest and the Wasm layer from the store or
// the registry; then the signatures the policy asks for.
func (r *Resolver) getOCI(ctx context.Context, ref Ref, req Request) (*Result, error) {
	repo := r.repository(ref)
	res := &Result{Ref: ref, Digest: ref.Digest}
	switch {
	case ref.Digest != "":
		res.Pin = "source"
	case r.opts.Lock == nil:
		res.Pin = "unpinned"
	default:
		if d, ok := r.opts.Lock.Get(ref.Raw); ok {
			res.Digest, res.Pin = d, "lock"
		}
	}
	if res.Digest == "" || r.opts.Update && ref.Digest == "" {
		if r.opts.Offline {
			where := "no lock file"
			if r.opts.Lock != nil {
				where = "no pin for it in " + r.opts.Lock.Path()
			}
			return nil, fmt.Errorf("%w: the tag %q must be resolved in the registry, and there is %s: run mcpwasm pull while online", errOffline, ref.Tag, where)
		}
		d, n, err := r.resolveTag(ctx, repo, ref)
		if err != nil {
			return nil, err
		}
		res.Fetched += n
		switch {
		case res.Digest != "" && res.Digest != d:
			res.Previous, res.Pin = res.Digest, "moved"
		case res.Pin == "":
			res.Pin = "new"
		}
		res.Digest = d
	}
	m, n, err := r.manifest(ctx, repo, ref, res.Digest, res.Pin == "lock")
	res.Fetched += n
	if err != nil {
		return nil, err
	}
	if m.isIndex() {
		child, err := m.pick()
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", res.Digest, err)
		}
		if m, n, err = r.manifest(ctx, repo, ref, child.Digest.String(), false); err != nil {
			return nil, fmt.Errorf("index %s: %w", res.Digest, err)
		}
		res.Fetched += n
		if m.isIndex() {
			return nil, fmt.Errorf("index %s points to another index: refused", res.Digest)
		}
	}
	wasm, mediaType, n, err := r.wasmFrom(ctx, repo, ref, m)
	res.Fetched += n
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", res.Digest, err)
	}
	res.Wasm, res.MediaType, res.WasmDigest = wasm, mediaType, sha256Digest(wasm)
	sig, n, err := r.signatures(ctx, repo, ref, res.Digest, req.Policy)
	res.Fetched += n
	res.Signature = sig
	if err != nil {
		return nil, err
	}
	return res, nil
}

// recordPin writes the digest a tag resolved to into the lock, once the
// plugin it names was got and passed every check (Get calls it last): a
// tag moved to something refused keeps its old pin, and a first fetch
// that fails pins nothing.
func (r *Resolver) recordPin(res *Result) {
	if r.opts.Lock == nil || (res.Pin != "new" && res.Pin != "moved") {
		return
	}
	if err := r.opts.Lock.Set(res.Ref.Raw, res.Digest); err != nil {
		r.logger.Warn("could not record the pin: the tag is resolved again next time", "source", res.Ref.Raw, "err", err)
	}
}

// resolveTag asks the registry which manifest the tag names, stores the
// manifest, and returns its digest, computed from the bytes (a
// Docker-Content-Digest header that disagrees is an error naming both).
func (r *Resolver) resolveTag(ctx context.Context, repo *remote.Repository, ref Ref) (string, int64, error) {
	desc, rc, err := repo.FetchReference(ctx, ref.Tag)
	if err != nil {
		if errors.Is(err, errdef.ErrNotFound) {
			return "", 0, fmt.Errorf("the tag %q is not in %s", ref.Tag, ref.repoKey())
		}
		return "", 0, fmt.Errorf("resolving the tag %q: %w", ref.Tag, hideQuery(err))
	}
	defer rc.Close()
	b, err := readCapped(rc, maxManifest)
	if err != nil {
		return "", 0, fmt.Errorf("the manifest for tag %q: %w", ref.Tag, err)
	}
	d := store.Digest(b)
	if desc.Digest != "" && desc.Digest.String() != d {
		return "", 0, fmt.Errorf("digest mismatch: the registry says the tag %q is %s, the manifest it sent hashes to %s", ref.Tag, desc.Digest, d)
	}
	if _, err := r.opts.Store.Put(b); err != nil {
		return "", 0, err
	}
	return d, int64(len(b)), nil
}

// manifest returns the parsed manifest or index d, from the store or the
// registry. pinned says d came from the lock: if the registry no longer
// has it, the error names where the tag points now.
func (r *Resolver) manifest(ctx context.Context, repo *remote.Repository, ref Ref, d string, pinned bool) (*manifest, int64, error) {
	b, n, err := r.blob(ctx, ref.Raw, "manifest", d, 0, maxManifest, func(ctx context.Context) (reader, error) {
		_, rc, err := repo.FetchReference(ctx, d)
		return rc, err
	})
	if err != nil {
		if pinned && errors.Is(err, errdef.ErrNotFound) {
			now := "cannot be resolved either"
			if cur, _, terr := r.resolveTag(ctx, repo, ref); terr == nil {
				now = "now points to " + cur
			}
			return nil, n, fmt.Errorf("digest mismatch: %s pins %s, which the registry no longer has; the tag %s: run mcpwasm pull --update to move the pin", r.opts.Lock.Path(), d, now)
		}
		return nil, n, err
	}
	m, err := parseManifest(b)
	if err != nil {
		return nil, n, fmt.Errorf("manifest %s: %w", d, err)
	}
	return m, n, nil
}

// readCapped reads all of r, refusing more than max bytes.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &store.TooLargeError{Limit: max}
	}
	return b, nil
}
