package source

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// Keyless says whose Sigstore keyless signatures are trusted: the identity
// (the certificate's subject alternative name: an e-mail address or a CI
// workflow URI) and the OIDC issuer that vouched for it, checked against a
// trusted root file (Sigstore's trusted_root.json, or a private
// deployment's) so that verification needs no network.
//
// Keyless verification uses sigstore-go, which is large (about 370
// modules), so it lives in the nested module github.com/mcpwasm/mcpwasm/sigstore,
// whose keyless package registers a KeylessVerifier; only binaries built by
// sigstore/build.sh link it. Without one, a policy with a Keyless part is
// refused when it is read.
type Keyless struct {
	// TrustedRoot is the path of the trusted root JSON file.
	TrustedRoot string
	// Identity is the exact identity; IdentityRegexp a regular expression
	// the whole identity must match instead (it is anchored at both ends:
	// "github\.com/acme/" alone would also match an identity of another
	// owner whose branch is named github.com/acme/x). One of the two is
	// required.
	Identity, IdentityRegexp string
	// Issuer is the exact OIDC issuer URL; required.
	Issuer string
}

// KeylessVerifier checks Sigstore keyless signatures for a binary that has
// them (see Keyless).
type KeylessVerifier interface {
	// LoadTrustedRoot reads and checks the trusted root file at path.
	LoadTrustedRoot(path string) error
	// Verify checks the Sigstore bundle b, as cosign verify does, against
	// k's trusted root, identity and issuer, and that it signs the
	// manifest digest d ("sha256:…"). It returns the identity that signed;
	// an error says why the signature is not trusted.
	Verify(b []byte, d string, k *Keyless) (string, error)
}

var keylessVerifier KeylessVerifier

// RegisterKeyless makes v the binary's keyless verifier. The sigstore
// module's keyless package calls it from init; call it before any policy
// is read.
func RegisterKeyless(v KeylessVerifier) { keylessVerifier = v }

// KeylessAvailable reports whether this binary can check keyless
// signatures (a KeylessVerifier is registered).
func KeylessAvailable() bool { return keylessVerifier != nil }

func (k *Keyless) check() error {
	switch {
	case k.TrustedRoot == "":
		return errors.New("keyless verification needs trusted_root (a Sigstore trusted_root.json file)")
	case k.Issuer == "":
		return errors.New("keyless verification needs issuer (the OIDC issuer URL, e.g. https://token.actions.githubusercontent.com)")
	case k.Identity == "" && k.IdentityRegexp == "":
		return errors.New("keyless verification needs identity or identity_regexp (whose signature to trust)")
	case k.Identity != "" && k.IdentityRegexp != "":
		return errors.New("give identity or identity_regexp, not both")
	}
	if k.IdentityRegexp != "" {
		if _, err := regexp.Compile(k.IdentityRegexp); err != nil {
			return fmt.Errorf("identity_regexp: %v", err)
		}
	}
	if !KeylessAvailable() {
		return errors.New("keyless verification (identity, issuer, trusted_root) is not in this binary: build it with sigstore/build.sh (see docs/security.md, registry plugins), or use a public key")
	}
	return keylessVerifier.LoadTrustedRoot(k.TrustedRoot)
}

// checkKeyless verifies a keyless bundle with the registered verifier.
func checkKeyless(b []byte, d string, k *Keyless) (string, error) {
	if keylessVerifier == nil {
		return "", errors.New("a keyless (certificate) signature: this binary checks signatures made with a key; keyless verification needs a binary built with sigstore/build.sh")
	}
	return keylessVerifier.Verify(b, d, k)
}

// AnchoredRegexp is IdentityRegexp matching the whole identity ("" if
// none). sigstore-go, like cosign, would match it anywhere in it.
func (k *Keyless) AnchoredRegexp() string {
	if k.IdentityRegexp == "" {
		return ""
	}
	return "^(?:" + k.IdentityRegexp + ")$"
}

// Who names the trusted identity in messages.
func (k *Keyless) Who() string {
	id := k.Identity
	if id == "" {
		id = "~" + k.IdentityRegexp
	}
	return id + " (issuer " + k.Issuer + ")"
}

// DigestBytes is the hash in a sha256 digest ("sha256:" and 64 hex digits).
func DigestBytes(d string) ([]byte, error) {
	if len(d) != len("sha256:")+64 || d[:7] != "sha256:" {
		return nil, fmt.Errorf("%q is not a sha256 digest", d)
	}
	return hex.DecodeString(d[7:])
}

// isKeylessBundle reports whether a Sigstore bundle carries a certificate
// (keyless) rather than naming a public key.
func isKeylessBundle(b []byte) bool {
	var bu sigBundle
	return json.Unmarshal(b, &bu) == nil && bu.VerificationMaterial.PublicKey == nil &&
		(bu.VerificationMaterial.Certificate != nil || bu.VerificationMaterial.X509Chain != nil)
}
