package source

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func policy(t *testing.T, mode Mode, keys ...crypto.Signer) Policy {
	var files []string
	for _, k := range keys {
		files = append(files, ocitest.WritePublicKey(t, k))
	}
	p, err := NewPolicy(string(mode), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// signedPlugin pushes a plugin and returns its source and manifest.
func signedPlugin(t *testing.T, reg *ocitest.Registry, repo string, name string) (string, ocispec.Descriptor, []byte) {
	desc := reg.PushWasm(t, repo, "1", fixture.Bytes(t, name))
	m, _, _ := reg.Repo(repo).Get(desc.Digest)
	return "oci://" + reg.Host() + "/" + repo + ":1", desc, m
}

// signCosign signs the manifest d of repo with key as "cosign sign --key"
// does: a payload naming repo and d, its signature under d's .sig tag.
func signCosign(t *testing.T, reg *ocitest.Registry, repo string, d digest.Digest, key crypto.Signer) {
	payload := ocitest.CosignPayload(reg.Host()+"/"+repo, d)
	reg.SignCosign(t, repo, d, payload, ocitest.Sign(t, key, payload))
}

// TestSignaturesWithKey: each signature format cosign writes verifies
// with the right key and fails, naming why, with a wrong key, another
// plugin's signature or an unsigned plugin under "required".
func TestSignaturesWithKey(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	good, other := ecKey(t), ecKey(t)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	get := func(src string, p Policy) (*Result, error) {
		return newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: p})
	}

	// cosign sign --key (the .sig tag), ECDSA P-256, RSA and Ed25519.
	for name, key := range map[string]crypto.Signer{"ecdsa": good, "rsa": rsaKey, "ed25519": edKey} {
		repo := "cosign/" + name
		src, desc, _ := signedPlugin(t, reg, repo, "echo")
		signCosign(t, reg, repo, desc.Digest, key)
		res, err := get(src, policy(t, Required, key))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Signature.State != "verified" || !strings.HasSuffix(res.Signature.Key, "cosign.pub") {
			t.Fatalf("%s: signature %+v", name, res.Signature)
		}
		// The same signature checked with another key: refused, also
		// under if-signed (a signature that is there must verify).
		for _, mode := range []Mode{Required, IfSigned} {
			if _, err := get(src, policy(t, mode, other)); err == nil || !strings.Contains(err.Error(), "does not verify with the key") {
				t.Fatalf("%s, %s, wrong key: %v", name, mode, err)
			}
		}
		// Off looks at nothing.
		if res, err := get(src, policy(t, Off)); err != nil || res.Signature.State != "not checked" {
			t.Fatalf("%s, off: %v %+v", name, err, res)
		}
	}

	// Another plugin's valid signature copied onto this one: the payload
	// names the other digest.
	src, desc, _ := signedPlugin(t, reg, "cosign/copied", "constant")
	sigRepo := reg.Repo("cosign/ecdsa")
	ecDesc := sigRepo.MustResolve(t, "1")
	payload := ocitest.CosignPayload(reg.Host()+"/cosign/ecdsa", digest.Digest(ecDesc))
	reg.SignCosign(t, "cosign/copied", desc.Digest, payload, ocitest.Sign(t, good, payload))
	if _, err := get(src, policy(t, Required, good)); err == nil || !strings.Contains(err.Error(), "it signs "+ecDesc+", not this plugin's "+desc.Digest.String()) {
		t.Fatalf("copied signature: %v", err)
	}

	// A payload altered after signing.
	src, desc, _ = signedPlugin(t, reg, "cosign/altered", "echo")
	payload = ocitest.CosignPayload(reg.Host()+"/cosign/altered", desc.Digest)
	sig := ocitest.Sign(t, good, payload)
	reg.SignCosign(t, "cosign/altered", desc.Digest, bytes.Replace(payload, []byte("cosign/altered"), []byte("cosign/alterex"), 1), sig)
	if _, err := get(src, policy(t, Required, good)); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("altered payload: %v", err)
	}

	// Unsigned: refused under required, served under if-signed.
	src, _, _ = signedPlugin(t, reg, "plain/x", "echo")
	if _, err := get(src, policy(t, Required, good)); err == nil || !strings.Contains(err.Error(), "unsigned") || !strings.Contains(err.Error(), ".sig") {
		t.Fatalf("unsigned, required: %v", err)
	}
	if res, err := get(src, policy(t, IfSigned, good)); err != nil || res.Signature.State != "unsigned" {
		t.Fatalf("unsigned, if-signed: %v %+v", err, res)
	}

	// Sigstore bundles as referrers: a message signature (ECDSA) and a
	// DSSE envelope (Ed25519); a DSSE statement about another digest.
	src, desc, m := signedPlugin(t, reg, "bundle/message", "echo")
	reg.AttachBundle(t, "bundle/message", desc, ocitest.MessageBundle(t, good, m))
	if res, err := get(src, policy(t, Required, good)); err != nil || res.Signature.State != "verified" {
		t.Fatalf("message bundle: %v %+v", err, res)
	}
	if _, err := get(src, policy(t, Required, other)); err == nil || !strings.Contains(err.Error(), "Sigstore bundle") {
		t.Fatalf("message bundle, wrong key: %v", err)
	}
	src, desc, _ = signedPlugin(t, reg, "bundle/dsse", "echo")
	reg.AttachBundle(t, "bundle/dsse", desc, ocitest.DSSEBundle(t, edKey, desc.Digest))
	if res, err := get(src, policy(t, Required, edKey)); err != nil || res.Signature.State != "verified" {
		t.Fatalf("dsse bundle: %v %+v", err, res)
	}
	src, desc, _ = signedPlugin(t, reg, "bundle/elsewhere", "constant")
	reg.AttachBundle(t, "bundle/elsewhere", desc, ocitest.DSSEBundle(t, edKey, digest.Digest(ecDesc)))
	if _, err := get(src, policy(t, Required, edKey)); err == nil || !strings.Contains(err.Error(), "subjects do not include") {
		t.Fatalf("dsse about another digest: %v", err)
	}

	// A keyless bundle (a certificate, no key): named as such.
	src, desc, m = signedPlugin(t, reg, "bundle/keyless", "echo")
	var kb map[string]any
	json.Unmarshal(ocitest.MessageBundle(t, good, m), &kb)
	kb["verificationMaterial"] = map[string]any{"certificate": map[string]string{"rawBytes": "AAAA"}}
	kbb, _ := json.Marshal(kb)
	reg.AttachBundle(t, "bundle/keyless", desc, kbb)
	if _, err := get(src, policy(t, Required, good)); err == nil || !strings.Contains(err.Error(), "keyless") {
		t.Fatalf("keyless bundle: %v", err)
	}
}

// TestSignaturesStoredAndOffline: the signatures found are recorded with
// the plugin; an offline start checks them again from the store; a
// signature added after an unsigned pull is found when "required" asks.
func TestSignaturesStoredAndOffline(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	key := ecKey(t)
	dir := t.TempDir()
	src, desc, _ := signedPlugin(t, reg, "p/x", "echo")

	// Pulled unsigned under if-signed.
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	r := newResolver(t, dir, func(o *Options) { o.Logger = logger })
	if res, err := r.Get(ctx, Request{Source: src, Policy: policy(t, IfSigned, key)}); err != nil || res.Signature.State != "unsigned" {
		t.Fatalf("%v %+v", err, res)
	}
	// The resolver serves nothing (pull, validate and inspect use it too),
	// so its warning says what it did: accepted.
	if !strings.Contains(logs.String(), "unsigned plugin accepted") || strings.Contains(logs.String(), "served") {
		t.Fatalf("no warning:\n%s", logs.String())
	}

	// Signed since; offline, the record says unsigned: required refuses
	// without asking.
	signCosign(t, reg, "p/x", desc.Digest, key)
	before := reg.Requests()
	off := newResolver(t, dir, func(o *Options) { o.Offline = true })
	if _, err := off.Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("offline, required: %v", err)
	}
	if reg.Requests() != before {
		t.Fatal("offline resolver asked the registry")
	}
	// Online, required asks again and finds the signature.
	r = newResolver(t, dir, nil)
	if res, err := r.Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err != nil || res.Signature.State != "verified" {
		t.Fatalf("online, required: %v %+v", err, res)
	}
	// Now offline verifies from the store, with the registry gone.
	reg.Close()
	off = newResolver(t, dir, func(o *Options) { o.Offline = true })
	if res, err := off.Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err != nil || res.Signature.State != "verified" || res.Fetched != 0 {
		t.Fatalf("offline, verified: %v %+v", err, res)
	}
	// ... and still refuses the wrong key.
	if _, err := off.Get(ctx, Request{Source: src, Policy: policy(t, Required, ecKey(t))}); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("offline, wrong key: %v", err)
	}
	// A plugin whose signatures were never fetched, offline: required
	// refuses and says to pull.
	if _, err := newResolver(t, t.TempDir(), func(o *Options) { o.Offline = true }).Get(ctx, Request{Source: src + "x", Policy: policy(t, Required, key)}); err == nil || !strings.Contains(err.Error(), "mcpwasm pull") {
		t.Fatalf("offline, never pulled: %v", err)
	}
}

// TestSignaturesHostile: oversized signature payloads and more signatures
// than the cap are refused or bounded, never read whole.
func TestSignaturesHostile(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	key := ecKey(t)
	src, desc, _ := signedPlugin(t, reg, "h/big", "echo")
	big := bytes.Repeat([]byte("x"), maxSignatureBlob+1)
	reg.SignCosign(t, "h/big", desc.Digest, big, []byte("sig"))
	if _, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("oversized signature: %v", err)
	}

	src, desc, _ = signedPlugin(t, reg, "h/many", "echo")
	payload := ocitest.CosignPayload(reg.Host()+"/h/many", desc.Digest)
	for i := 0; i < maxSignatures+8; i++ {
		bad := append(append([]byte(nil), payload...), byte(' '), byte('0'+i%10), byte('0'+i/10)) // distinct, unsigned by key
		reg.SignCosign(t, "h/many", desc.Digest, bad, []byte("not a signature"))
	}
	_, err := newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, key)})
	if err == nil || !strings.Contains(err.Error(), "32 signature(s) found") || !strings.Contains(err.Error(), "and 29 more") {
		t.Fatalf("many signatures: %v", err)
	}
}
