package source

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// Mode is a signature policy.
type Mode string

// Signature policies.
const (
	// Off looks at no signature.
	Off Mode = "off"
	// IfSigned requires a signature that is present to verify with one of
	// the keys; an unsigned plugin is served (and logged).
	IfSigned Mode = "if-signed"
	// Required requires a signature that verifies with one of the keys.
	Required Mode = "required"
)

// Policy says which signatures a plugin needs.
type Policy struct {
	Verify Mode
	Keys   []Key
	// Keyless, if set, trusts keyless signatures by one identity.
	Keyless *Keyless
}

// Key is a public key trusted for signatures.
type Key struct {
	// Name is where it was read from, for messages.
	Name   string
	Public crypto.PublicKey
}

// NewPolicy reads the key files, checks the keyless identity (nil: none)
// and the mode: "required", "if-signed", "off", or "" (if-signed when keys
// or an identity are given, else off). "required" and "if-signed" need a
// key or an identity.
func NewPolicy(mode string, keyFiles []string, keyless *Keyless) (Policy, error) {
	p := Policy{Verify: Mode(mode), Keyless: keyless}
	for _, f := range keyFiles {
		k, err := LoadKey(f)
		if err != nil {
			return p, err
		}
		p.Keys = append(p.Keys, k)
	}
	if keyless != nil {
		if err := keyless.check(); err != nil {
			return p, err
		}
	}
	trusted := len(p.Keys) > 0 || keyless != nil
	switch p.Verify {
	case "":
		p.Verify = Off
		if trusted {
			p.Verify = IfSigned
		}
	case Off:
	case IfSigned, Required:
		if !trusted {
			return p, fmt.Errorf("verify = %q needs a public key (keys, or --key cosign.pub) or a keyless identity (identity, issuer, trusted_root) to check signatures with", mode)
		}
	default:
		return p, fmt.Errorf("verify must be \"required\", \"if-signed\" or \"off\", not %q", mode)
	}
	return p, nil
}

// LoadKey reads a PEM public key: ECDSA (cosign's default, P-256), RSA or
// Ed25519, as `cosign generate-key-pair` writes cosign.pub.
func LoadKey(path string) (Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Key{}, fmt.Errorf("public key: %w", err)
	}
	k, err := ParseKey(b)
	if err != nil {
		return Key{}, fmt.Errorf("public key %s: %w", path, err)
	}
	k.Name = path
	return k, nil
}

// ParseKey parses a PEM "PUBLIC KEY" block.
func ParseKey(b []byte) (Key, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return Key{}, errors.New("no PEM block")
	}
	if blk.Type != "PUBLIC KEY" {
		return Key{}, fmt.Errorf("a PEM %q block, not a PUBLIC KEY", blk.Type)
	}
	pub, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return Key{}, err
	}
	switch k := pub.(type) {
	case *ecdsa.PublicKey, ed25519.PublicKey:
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return Key{}, fmt.Errorf("an RSA key of %d bits: at least 2048 are required", k.N.BitLen())
		}
	default:
		return Key{}, fmt.Errorf("unsupported key type %T", pub)
	}
	return Key{Public: pub}, nil
}

// Signature is what was found about a plugin's signatures.
type Signature struct {
	// State is "not checked", "unsigned", "verified" or, for an https
	// plugin, "none".
	State string
	// Key names the key a verified signature was checked with.
	Key string
	// Found is the number of signatures found.
	Found int
	// Note says more: why an unsigned plugin was served, which
	// signatures did not verify.
	Note string
}

// String describes the signature state in a few words.
func (s Signature) String() string {
	out := s.State
	if s.Key != "" {
		out += " with " + s.Key
	}
	if s.Note != "" {
		out += " (" + s.Note + ")"
	}
	return out
}
