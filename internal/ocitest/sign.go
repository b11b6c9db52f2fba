package ocitest

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Media and artifact types of cosign's two signature formats.
const (
	MediaSimpleSigning = "application/vnd.dev.cosign.simplesigning.v1+json"
	ArtifactBundle     = "application/vnd.dev.sigstore.bundle.v0.3+json"
)

// CosignPayload is the simple-signing payload cosign signs for the
// manifest subject of repository ref.
func CosignPayload(ref string, subject digest.Digest) []byte {
	b, _ := json.Marshal(map[string]any{
		"critical": map[string]any{
			"identity": map[string]string{"docker-reference": ref},
			"image":    map[string]string{"docker-manifest-digest": subject.String()},
			"type":     "cosign container image signature",
		},
		"optional": nil,
	})
	return b
}

// Sign signs msg with key as cosign does: ECDSA and RSA over SHA-256 of
// msg, Ed25519 over msg itself.
func Sign(t testing.TB, key crypto.Signer, msg []byte) []byte {
	t.Helper()
	var sig []byte
	var err error
	if _, ok := key.(ed25519.PrivateKey); ok {
		sig, err = key.Sign(rand.Reader, msg, crypto.Hash(0))
	} else {
		h := sha256.Sum256(msg)
		sig, err = key.Sign(rand.Reader, h[:], crypto.SHA256)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// SignCosign adds a layer to the cosign signature manifest of subject
// (tag sha256-<hex>.sig), as `cosign sign --key` does: payload is the
// signed layer (CosignPayload for a real signature) and sig its signature
// annotation.
func (reg *Registry) SignCosign(t testing.TB, repo string, subject digest.Digest, payload, sig []byte) {
	t.Helper()
	r := reg.Repo(repo)
	tag := subject.Algorithm().String() + "-" + subject.Encoded() + ".sig"
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest,
		Config: ocispec.Descriptor{MediaType: "application/vnd.oci.image.config.v1+json", Digest: r.Put([]byte("{}"), ""), Size: 2}}
	m.SchemaVersion = 2
	if d, ok := r.Resolve(tag); ok {
		b, _, _ := r.Get(d)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
	}
	m.Layers = append(m.Layers, ocispec.Descriptor{MediaType: MediaSimpleSigning, Digest: r.Put(payload, ""), Size: int64(len(payload)),
		Annotations: map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig)}})
	reg.PushManifest(t, repo, tag, m, ocispec.MediaTypeImageManifest)
}

// AttachBundle stores bundle as a referrer of subject (a manifest of
// mediaType and size), as cosign v3 attaches a Sigstore bundle.
func (reg *Registry) AttachBundle(t testing.TB, repo string, subject ocispec.Descriptor, bundle []byte) digest.Digest {
	t.Helper()
	r := reg.Repo(repo)
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactBundle,
		Config:  ocispec.Descriptor{MediaType: ocispec.MediaTypeEmptyJSON, Digest: r.Put([]byte("{}"), ""), Size: 2},
		Layers:  []ocispec.Descriptor{{MediaType: ArtifactBundle, Digest: r.Put(bundle, ""), Size: int64(len(bundle))}},
		Subject: &subject}
	m.SchemaVersion = 2
	return reg.PushManifest(t, repo, "", m, ocispec.MediaTypeImageManifest).Digest
}

// MessageBundle is a Sigstore bundle with a message signature over
// manifest made with key (verification material: a public key hint).
func MessageBundle(t testing.TB, key crypto.Signer, manifest []byte) []byte {
	t.Helper()
	h := sha256.Sum256(manifest)
	b, _ := json.Marshal(map[string]any{
		"mediaType":            ArtifactBundle,
		"verificationMaterial": map[string]any{"publicKey": map[string]string{"hint": "test"}},
		"messageSignature": map[string]any{
			"messageDigest": map[string]any{"algorithm": "SHA2_256", "digest": h[:]},
			"signature":     Sign(t, key, manifest),
		},
	})
	return b
}

// Statement is the in-toto statement cosign v3 signs for an image: its
// subject is the manifest digest.
func Statement(subject digest.Digest) []byte {
	st, _ := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": "plugin", "digest": map[string]string{"sha256": subject.Encoded()}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	})
	return st
}

// DSSEBundle is a Sigstore bundle with a DSSE envelope holding an in-toto
// statement whose subject is subject, signed with key.
func DSSEBundle(t testing.TB, key crypto.Signer, subject digest.Digest) []byte {
	t.Helper()
	st := Statement(subject)
	const pt = "application/vnd.in-toto+json"
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(pt), pt, len(st), st)
	b, _ := json.Marshal(map[string]any{
		"mediaType":            ArtifactBundle,
		"verificationMaterial": map[string]any{"publicKey": map[string]string{"hint": "test"}},
		"dsseEnvelope": map[string]any{"payload": st, "payloadType": pt,
			"signatures": []any{map[string]any{"sig": Sign(t, key, pae)}}},
	})
	return b
}

// WritePublicKey writes key's public half as a PEM file (cosign.pub's
// form) in a temporary folder and returns its path.
func WritePublicKey(t testing.TB, key crypto.Signer) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "cosign.pub")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
