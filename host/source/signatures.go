package source

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
)

// sigRecord is what the registry said about a manifest's signatures, kept
// in the store (kind "signatures", keyed by repository and digest) so a
// later start, online or offline, checks the same signatures without asking
// again. pull --update asks again.
type sigRecord struct {
	Checked time.Time `json:"checked"`
	Items   []sigItem `json:"items"`
}

const recordSignatures = "signatures"

// signatures finds the signatures of the manifest d (from the store's
// record, else the registry) and checks them against the policy. Under
// "required" a plugin needs a signature that verifies with a trusted key;
// under "if-signed" an unsigned plugin is served (with a warning) but one
// whose signatures all fail is not.
func (r *Resolver) signatures(ctx context.Context, repo *remote.Repository, ref Ref, d string, p Policy) (sig Signature, _ int64, err error) {
	if p.Verify == "" || p.Verify == Off {
		return Signature{State: "not checked"}, 0, nil
	}
	ctx, span := tracing.Start(ctx, "source.verify", tracing.KeySource, ref.traceName(), tracing.KeyVerify, string(p.Verify),
		tracing.KeyDigest, strings.TrimPrefix(d, "sha256:"))
	defer func() {
		span.SetString("mcpwasm.signature.state", sig.State)
		span.End(err)
	}()
	manifest, err := r.opts.Store.Read(d, maxManifest)
	if err != nil {
		return Signature{}, 0, fmt.Errorf("manifest %s: %w", d, err)
	}
	key := ref.repoKey() + "@" + d
	var rec sigRecord
	have, err := r.opts.Store.ReadRecord(recordSignatures, key, &rec)
	if err != nil {
		r.logger.Warn("plugin store: signature record unreadable; asking the registry again", "source", ref.Raw, "err", err)
		have = false
	}
	var fetched int64
	fresh := false
	refresh := func() error {
		if r.opts.Offline {
			return fmt.Errorf("%w: the signatures of %s were never fetched: run mcpwasm pull while online", errOffline, d)
		}
		nrec, n, err := r.fetchSignatures(ctx, repo, ref, d, manifest)
		fetched += n
		if err != nil {
			return fmt.Errorf("looking for signatures of %s: %w", d, err)
		}
		rec, have, fresh = nrec, true, true
		return nil
	}
	if !have || r.opts.Update {
		if err := refresh(); err != nil {
			if !(IsOffline(err) && p.Verify == IfSigned) {
				return Signature{}, fetched, err
			}
			r.logger.Warn("plugin accepted without a signature check: offline, and its signatures were never fetched", "source", ref.Raw, "digest", d)
			return Signature{State: "not checked", Note: "offline, never fetched; verify = if-signed"}, fetched, nil
		}
	}
	sig, err = r.evaluate(rec, d, manifest, p)
	// A required signature may have been added since the record was made:
	// ask once more before refusing (online only).
	if err != nil && p.Verify == Required && len(rec.Items) == 0 && !r.opts.Offline && !r.opts.Update {
		if ferr := refresh(); ferr != nil {
			return Signature{}, fetched, ferr
		}
		sig, err = r.evaluate(rec, d, manifest, p)
	}
	if err != nil {
		return sig, fetched, err
	}
	// Recorded only once it passed: what a refused answer (a registry
	// hiding the signatures on pull --update) found does not replace the
	// signatures a later offline start checks.
	if fresh {
		if err := r.opts.Store.WriteRecord(recordSignatures, key, rec); err != nil {
			r.logger.Warn("plugin store: could not record the signatures found", "source", ref.Raw, "err", err)
		}
	}
	if sig.State == "unsigned" {
		r.logger.Warn("unsigned plugin accepted (verify = if-signed)", "source", ref.Raw, "digest", d)
	}
	return sig, fetched, nil
}

// evaluate checks recorded signatures against the policy.
func (r *Resolver) evaluate(rec sigRecord, d string, manifest []byte, p Policy) (Signature, error) {
	sig := Signature{Found: len(rec.Items)}
	if len(rec.Items) == 0 {
		if p.Verify == Required {
			return sig, fmt.Errorf("unsigned: no cosign signature (tag %s) and no Sigstore bundle referrer for %s, and verify = \"required\"", sigTag(d), d)
		}
		sig.State, sig.Note = "unsigned", "allowed by verify = if-signed"
		return sig, nil
	}
	var why []string
	for _, it := range rec.Items {
		blob, err := r.opts.Store.Read(it.Blob, maxSignatureBlob)
		var by string
		if err == nil {
			by, err = checkOne(it, blob, d, manifest, p)
		}
		if err == nil {
			sig.State, sig.Key = "verified", by
			if len(rec.Items) > 1 {
				sig.Note = fmt.Sprintf("%d signatures found", len(rec.Items))
			}
			return sig, nil
		}
		why = append(why, it.describe()+": "+err.Error())
	}
	const show = 3
	more := ""
	if len(why) > show {
		more = fmt.Sprintf("; and %d more", len(why)-show)
		why = why[:show]
	}
	return sig, fmt.Errorf("signature check failed: %d signature(s) found and none verifies with the trusted key(s) or identity: %s%s", len(rec.Items), strings.Join(why, "; "), more)
}

// fetchSignatures asks the registry for the signatures of d: cosign's
// sha256-<hex>.sig tag and Sigstore bundles among d's referrers. Their
// payloads go into the store; at most maxSignatures are kept.
func (r *Resolver) fetchSignatures(ctx context.Context, repo *remote.Repository, ref Ref, d string, manifest []byte) (sigRecord, int64, error) {
	rec := sigRecord{Checked: time.Now().UTC(), Items: []sigItem{}}
	var total int64
	add := func(it sigItem, l ocispec.Descriptor, limit int) error {
		if len(rec.Items) >= limit {
			return nil
		}
		_, n, err := r.blob(ctx, ref.Raw, "signature", l.Digest.String(), l.Size, maxSignatureBlob, func(ctx context.Context) (reader, error) {
			return repo.Blobs().Fetch(ctx, l)
		})
		total += n
		if err != nil {
			return err
		}
		it.Blob = l.Digest.String()
		rec.Items = append(rec.Items, it)
		return nil
	}

	// Sigstore bundles attached as referrers, listed first: signatures in
	// cosign's tag may not take the places of those (at least half of
	// maxSignatures is kept for them), so whoever can push to the tag
	// cannot hide a good bundle behind 32 bad signatures.
	m, err := parseManifest(manifest)
	if err != nil {
		return rec, total, err
	}
	mt := m.MediaType
	if mt == "" {
		mt = mediaOCIManifest
		if m.isIndex() {
			mt = mediaOCIIndex
		}
	}
	subject := ocispec.Descriptor{MediaType: mt, Digest: digest.Digest(d), Size: int64(len(manifest))}
	var referrers []ocispec.Descriptor
	err = repo.Referrers(ctx, subject, artifactTypeBundle, func(page []ocispec.Descriptor) error {
		for _, x := range page {
			if x.ArtifactType == artifactTypeBundle && len(referrers) < maxSignatures {
				referrers = append(referrers, x)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errdef.ErrNotFound) {
		return rec, total, fmt.Errorf("the referrers of %s: %w", d, hideQuery(err))
	}
	cosignCap := maxSignatures - min(len(referrers), maxSignatures/2)

	// cosign's tag.
	_, rc, err := repo.FetchReference(ctx, sigTag(d))
	switch {
	case errors.Is(err, errdef.ErrNotFound):
	case err != nil:
		return rec, total, fmt.Errorf("the tag %s: %w", sigTag(d), hideQuery(err))
	default:
		b, err := readCapped(rc, maxManifest)
		rc.Close()
		if err != nil {
			return rec, total, fmt.Errorf("the tag %s: %w", sigTag(d), err)
		}
		total += int64(len(b))
		m, err := parseManifest(b)
		if err != nil {
			return rec, total, fmt.Errorf("the tag %s: %w", sigTag(d), err)
		}
		from := sha256Digest(b)
		for _, l := range m.Layers {
			if l.MediaType != mediaSimpleSigning {
				continue
			}
			it := sigItem{Kind: "cosign", Signature: l.Annotations[annotationSignature], From: from,
				Keyless: l.Annotations[annotationCertificate] != ""}
			if err := add(it, l, cosignCap); err != nil {
				return rec, total, fmt.Errorf("the tag %s: %w", sigTag(d), err)
			}
		}
	}

	for _, x := range referrers {
		if len(rec.Items) >= maxSignatures {
			break
		}
		if x.Size > maxSignatureManifest || x.Size <= 0 {
			r.logger.Warn("signature referrer skipped: its size is not that of a bundle's manifest", "source", ref.Raw,
				"referrer", x.Digest.String(), "bytes", x.Size, "limit", maxSignatureManifest)
			continue
		}
		b, n, err := r.blob(ctx, ref.Raw, "signature manifest", x.Digest.String(), x.Size, maxSignatureManifest, func(ctx context.Context) (reader, error) {
			return repo.Manifests().Fetch(ctx, x)
		})
		total += n
		if err != nil {
			return rec, total, err
		}
		sm, err := parseManifest(b)
		if err != nil {
			return rec, total, fmt.Errorf("referrer %s: %w", x.Digest, err)
		}
		for _, l := range sm.Layers {
			if strings.HasPrefix(l.MediaType, "application/vnd.dev.sigstore.bundle") {
				if err := add(sigItem{Kind: "bundle", From: x.Digest.String()}, l, maxSignatures); err != nil {
					return rec, total, fmt.Errorf("referrer %s: %w", x.Digest, err)
				}
				break
			}
		}
	}
	return rec, total, nil
}

// checkOne checks one recorded signature and names what verified it: a
// key file, or a keyless identity.
func checkOne(it sigItem, blob []byte, d string, manifest []byte, p Policy) (string, error) {
	switch {
	case it.Kind == "bundle" && isKeylessBundle(blob):
		if p.Keyless == nil {
			return "", errors.New("a keyless (certificate) signature, and no identity is trusted (identity, issuer, trusted_root)")
		}
		who, err := checkKeyless(blob, d, p.Keyless)
		if err != nil {
			return "", err
		}
		return "identity " + who, nil
	case it.Kind == "bundle":
		k, err := checkBundle(blob, d, manifest, p.Keys)
		return "key " + k.Name, err
	}
	k, err := checkCosign(it, blob, d, p.Keys)
	return "key " + k.Name, err
}
