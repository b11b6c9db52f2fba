package keyless

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"google.golang.org/protobuf/encoding/protojson"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// The types of host/source these tests use.
type (
	Keyless = source.Keyless
	Policy  = source.Policy
	Request = source.Request
	Options = source.Options
	Result  = source.Result
)

// newResolver is a resolver with its store and lock file in dir (a fresh
// folder if ""), changed by mod.
func newResolver(t *testing.T, dir string, mod func(*Options)) *source.Resolver {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := source.OpenLock(filepath.Join(dir, source.LockName))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Store: st, Lock: lock, Credentials: func(context.Context, string) (auth.Credential, error) {
		return auth.EmptyCredential, nil
	}}
	if mod != nil {
		mod(&o)
	}
	r, err := source.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// signedPlugin pushes the fixture as repo:1 and returns its source, its
// manifest's descriptor and the manifest.
func signedPlugin(t *testing.T, reg *ocitest.Registry, repo, name string) (string, ocispec.Descriptor, []byte) {
	wasm, err := os.ReadFile(fixture.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	desc := reg.PushWasm(t, repo, "1", wasm)
	m, _, _ := reg.Repo(repo).Get(desc.Digest)
	return "oci://" + reg.Host() + "/" + repo + ":1", desc, m
}

// keylessBundle signs an in-toto statement naming subject as
// identity/issuer with the virtual Sigstore (a Fulcio certificate, a Rekor
// entry with its inclusion proof, a TSA timestamp) and writes the Sigstore
// bundle cosign v3 attaches to an image.
func keylessBundle(t *testing.T, vs *ca.VirtualSigstore, identity, issuer string, subject digest.Digest) []byte {
	t.Helper()
	ent, err := vs.AttestAtTime(identity, issuer, ocitest.Statement(subject), time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	vc, _ := ent.VerificationContent()
	sc, _ := ent.SignatureContent()
	tl, _ := ent.TlogEntries()
	ts, _ := ent.Timestamps()
	env := sc.(*bundle.Envelope).Envelope
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []*protodsse.Signature
	for _, s := range env.Signatures {
		raw, _ := base64.StdEncoding.DecodeString(s.Sig)
		sigs = append(sigs, &protodsse.Signature{Sig: raw, Keyid: s.KeyID})
	}
	var tles []*protorekor.TransparencyLogEntry
	for _, e := range tl {
		tle := e.TransparencyLogEntry()
		var kv struct{ Kind, APIVersion string }
		json.Unmarshal(tle.CanonicalizedBody, &kv)
		tle.KindVersion = &protorekor.KindVersion{Kind: kv.Kind, Version: kv.APIVersion}
		tles = append(tles, tle)
	}
	var stamps []*protocommon.RFC3161SignedTimestamp
	for _, s := range ts {
		stamps = append(stamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: s})
	}
	pb := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content:                   &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.(*bundle.Certificate).Certificate().Raw}},
			TlogEntries:               tles,
			TimestampVerificationData: &protobundle.TimestampVerificationData{Rfc3161Timestamps: stamps},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{Payload: payload, PayloadType: env.PayloadType, Signatures: sigs}},
	}
	b, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trustedRootFile writes the virtual Sigstore's trusted root, with or
// without its CT logs.
func trustedRootFile(t *testing.T, vs *ca.VirtualSigstore, withCT bool) string {
	t.Helper()
	// The virtual Sigstore keys its logs by hex ID but keeps the hex text
	// as the ID; a trusted root file holds the raw ID.
	rawIDs := func(logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
		out := map[string]*root.TransparencyLog{}
		for k, l := range logs {
			c := *l
			c.ID, _ = hex.DecodeString(k)
			out[k] = &c
		}
		return out
	}
	ct := rawIDs(vs.CTLogs())
	if !withCT {
		ct = map[string]*root.TransparencyLog{}
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), ct, vs.TimestampingAuthorities(), rawIDs(vs.RekorLogs()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKeyless: a keyless signature by the trusted identity and issuer
// verifies offline against the trusted root file; another identity,
// another issuer, another Sigstore's signature, a signature over another
// plugin, and a certificate without the CT timestamps the root asks for
// are refused, naming the identity.
func TestKeyless(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	rogue, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	const who, iss = "https://github.com/acme/tools/.github/workflows/release.yml@refs/tags/v1", "https://token.actions.githubusercontent.com"
	rootFile := trustedRootFile(t, vs, false)
	pol := func(k Keyless) Policy {
		p, err := source.NewPolicy("required", nil, &k)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	trusted := Keyless{TrustedRoot: rootFile, Identity: who, Issuer: iss}
	get := func(src string, p Policy) (*Result, error) {
		return newResolver(t, "", nil).Get(ctx, Request{Source: src, Policy: p})
	}

	src, desc, _ := signedPlugin(t, reg, "k/good", "echo")
	reg.AttachBundle(t, "k/good", desc, keylessBundle(t, vs, who, iss, desc.Digest))
	res, err := get(src, pol(trusted))
	if err != nil {
		t.Fatal(err)
	}
	if res.Signature.State != "verified" || res.Signature.Key != "identity "+who {
		t.Fatalf("signature %+v", res.Signature)
	}
	if _, err := get(src, pol(Keyless{TrustedRoot: rootFile, IdentityRegexp: `https://github\.com/acme/.*`, Issuer: iss})); err != nil {
		t.Fatalf("identity_regexp: %v", err)
	}
	// identity_regexp matches the whole identity: a pattern written
	// without anchors does not accept another owner's workflow whose
	// branch name contains it.
	evil := "https://github.com/evil/tools/.github/workflows/release.yml@refs/heads/github.com/acme/x"
	esrc, edesc, _ := signedPlugin(t, reg, "k/evil", "echo")
	reg.AttachBundle(t, "k/evil", edesc, keylessBundle(t, vs, evil, iss, edesc.Digest))
	for _, re := range []string{`github\.com/acme/`, `https://github\.com/acme/.*|x`, `^https://github\.com/acme/`} {
		if _, err := get(esrc, pol(Keyless{TrustedRoot: rootFile, IdentityRegexp: re, Issuer: iss})); err == nil || !strings.Contains(err.Error(), "keyless signature not trusted") {
			t.Fatalf("identity_regexp %s accepted %s: %v", re, evil, err)
		}
	}
	for name, k := range map[string]Keyless{
		"another identity": {TrustedRoot: rootFile, Identity: "https://github.com/evil/tools/.github/workflows/release.yml@refs/tags/v1", Issuer: iss},
		"another issuer":   {TrustedRoot: rootFile, Identity: who, Issuer: "https://accounts.google.com"},
		"regexp not met":   {TrustedRoot: rootFile, IdentityRegexp: `^https://github\.com/evil/`, Issuer: iss},
		"CT required":      {TrustedRoot: trustedRootFile(t, vs, true), Identity: who, Issuer: iss},
	} {
		_, err := get(src, pol(k))
		if err == nil || !strings.Contains(err.Error(), "keyless signature not trusted") {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}

	// Signed by the right name on another Sigstore (not in the root).
	src, desc, _ = signedPlugin(t, reg, "k/rogue", "echo")
	reg.AttachBundle(t, "k/rogue", desc, keylessBundle(t, rogue, who, iss, desc.Digest))
	if _, err := get(src, pol(trusted)); err == nil || !strings.Contains(err.Error(), "keyless signature not trusted") {
		t.Fatalf("rogue Sigstore: %v", err)
	} else {
		t.Logf("rogue Sigstore: %v", err)
	}

	// A valid keyless signature of another plugin attached to this one.
	good := desc.Digest
	src, desc, _ = signedPlugin(t, reg, "k/copied", "constant")
	reg.AttachBundle(t, "k/copied", desc, keylessBundle(t, vs, who, iss, good))
	if _, err := get(src, pol(trusted)); err == nil || !strings.Contains(err.Error(), "keyless signature not trusted") {
		t.Fatalf("copied bundle: %v", err)
	} else {
		t.Logf("copied bundle: %v", err)
	}

	// Offline, from the store, the registry gone.
	dir := t.TempDir()
	src = "oci://" + reg.Host() + "/k/good:1"
	if _, err := newResolver(t, dir, nil).Get(ctx, Request{Source: src, Policy: pol(trusted)}); err != nil {
		t.Fatal(err)
	}
	reg.Close()
	res, err = newResolver(t, dir, func(o *Options) { o.Offline = true }).Get(ctx, Request{Source: src, Policy: pol(trusted)})
	if err != nil || res.Signature.State != "verified" {
		t.Fatalf("offline: %v %+v", err, res)
	}
}

// TestKeylessPolicyChecked: an incomplete keyless policy, a missing or
// malformed trusted root and a bad regexp are errors when the policy is
// read.
func TestKeylessPolicyChecked(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "root.json")
	os.WriteFile(bad, []byte(`{"mediaType": "nope"}`), 0o644)
	for name, k := range map[string]Keyless{
		"no root":        {Identity: "a", Issuer: "b"},
		"no issuer":      {TrustedRoot: bad, Identity: "a"},
		"no identity":    {TrustedRoot: bad, Issuer: "b"},
		"both":           {TrustedRoot: bad, Identity: "a", IdentityRegexp: "a", Issuer: "b"},
		"bad regexp":     {TrustedRoot: bad, IdentityRegexp: "(", Issuer: "b"},
		"missing root":   {TrustedRoot: bad + ".missing", Identity: "a", Issuer: "b"},
		"malformed root": {TrustedRoot: bad, Identity: "a", Issuer: "b"},
	} {
		if _, err := source.NewPolicy("required", nil, &k); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
