// Package keyless verifies Sigstore keyless signatures of registry plugins
// with sigstore-go. Importing it registers the verifier with host/source;
// sigstore/build.sh builds an mcpwasm binary that imports it. It is a
// module of its own so that the main module, and the default binary, carry
// none of sigstore-go's dependencies.
package keyless

import (
	"fmt"
	"sync"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/mcpwasm/mcpwasm/host/source"
)

func init() { source.RegisterKeyless(Verifier{}) }

// Verifier is the source.KeylessVerifier this package registers.
type Verifier struct{}

// roots caches trusted roots by path: a file is read once per process.
var roots sync.Map // path -> *root.TrustedRoot

func trustedRoot(path string) (*root.TrustedRoot, error) {
	if tr, ok := roots.Load(path); ok {
		return tr.(*root.TrustedRoot), nil
	}
	tr, err := root.NewTrustedRootFromPath(path)
	if err != nil {
		return nil, fmt.Errorf("trusted root %s: %w", path, err)
	}
	roots.Store(path, tr)
	return tr, nil
}

// LoadTrustedRoot reads and checks the trusted root at path (once per
// process).
func (Verifier) LoadTrustedRoot(path string) error {
	_, err := trustedRoot(path)
	return err
}

// Verify verifies a Sigstore bundle made keyless against the trusted
// root, as cosign verify does: the certificate chains to a Fulcio CA of the
// root and was valid when the signature was logged (a transparency log
// entry of the root's logs, with a signed timestamp or its integrated time)
// and, when the root lists CT logs, embeds a certificate transparency
// timestamp; the identity and issuer
// match; and the signature covers the manifest digest d (a message
// signature over the manifest, or a DSSE statement naming it). It returns
// the identity that signed.
func (Verifier) Verify(b []byte, d string, k *source.Keyless) (string, error) {
	tr, err := trustedRoot(k.TrustedRoot)
	if err != nil {
		return "", err
	}
	var bu bundle.Bundle
	if err := bu.UnmarshalJSON(b); err != nil {
		return "", fmt.Errorf("not a valid Sigstore bundle: %v", err)
	}
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
	if len(tr.CTLogs()) > 0 {
		// Fulcio embeds certificate transparency timestamps; a root that
		// lists CT logs (Sigstore's public instance does) requires one.
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	v, err := verify.NewVerifier(tr, opts...)
	if err != nil {
		return "", err
	}
	id, err := verify.NewShortCertificateIdentity(k.Issuer, "", k.Identity, k.AnchoredRegexp())
	if err != nil {
		return "", err
	}
	sum, err := source.DigestBytes(d)
	if err != nil {
		return "", err
	}
	res, err := v.Verify(&bu, verify.NewPolicy(verify.WithArtifactDigest("sha256", sum), verify.WithCertificateIdentity(id)))
	if err != nil {
		return "", fmt.Errorf("keyless signature not trusted for %s: %v", k.Who(), err)
	}
	if res.Signature != nil && res.Signature.Certificate != nil {
		return res.Signature.Certificate.SubjectAlternativeName, nil
	}
	return k.Who(), nil
}
