package source

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Signature formats found in registries, both written by cosign.
const (
	// mediaSimpleSigning is the layer media type of a cosign signature
	// stored under the tag sha256-<hex>.sig (cosign up to v2, and v3 with
	// --new-bundle-format=false); the signature is the layer's annotation
	// annotationSignature, over the layer's bytes.
	mediaSimpleSigning  = "application/vnd.dev.cosign.simplesigning.v1+json"
	annotationSignature = "dev.cosignproject.cosign/signature"
	// annotationCertificate marks a keyless cosign signature.
	annotationCertificate = "dev.sigstore.cosign/certificate"
	// artifactTypeBundle is the artifact type of a Sigstore bundle
	// attached to a manifest as an OCI referrer (cosign v3's default).
	artifactTypeBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// simpleSigningType is the "type" a cosign payload must carry.
	simpleSigningType = "cosign container image signature"
	// inTotoPayloadType is the DSSE payload type of a statement.
	inTotoPayloadType = "application/vnd.in-toto+json"
)

// sigItem is one signature found for a manifest, as recorded in the store:
// the bytes it signs (a cosign payload) or carries it (a bundle) are a
// blob in the store, so a signature is checked again, offline, on every
// load.
type sigItem struct {
	// Kind is "cosign" (a .sig tag layer) or "bundle" (a referrer).
	Kind string `json:"kind"`
	// Blob is the digest of the payload (cosign) or of the bundle.
	Blob string `json:"blob"`
	// Signature is a cosign layer's base64 signature annotation.
	Signature string `json:"signature,omitempty"`
	// Keyless says a cosign layer carries a certificate rather than being
	// made with a key.
	Keyless bool `json:"keyless,omitempty"`
	// From is the digest of the manifest the signature came in.
	From string `json:"from"`
}

// describe names a signature in messages.
func (it sigItem) describe() string {
	if it.Kind == "bundle" {
		return "Sigstore bundle (referrer " + shortDigest(it.From) + ")"
	}
	return "cosign signature (" + shortDigest(it.From) + ")"
}

func shortDigest(d string) string {
	if len(d) > 19 {
		return d[:19] + "…"
	}
	return d
}

// checkCosign verifies a cosign simple-signing signature: the payload must
// name the manifest digest d and the signature must verify over the payload
// with one of keys.
func checkCosign(it sigItem, payload []byte, d string, keys []Key) (Key, error) {
	var p struct {
		Critical struct {
			Image struct {
				Digest string `json:"docker-manifest-digest"`
			} `json:"image"`
			Type string `json:"type"`
		} `json:"critical"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return Key{}, fmt.Errorf("the payload is not cosign's JSON: %v", err)
	}
	if p.Critical.Type != simpleSigningType {
		return Key{}, fmt.Errorf("the payload's type is %q, not %q", p.Critical.Type, simpleSigningType)
	}
	if p.Critical.Image.Digest != d {
		return Key{}, fmt.Errorf("it signs %s, not this plugin's %s", p.Critical.Image.Digest, d)
	}
	if it.Keyless {
		return Key{}, errors.New("a keyless cosign signature in the .sig tag: only keyless signatures in Sigstore bundles (cosign v3's default) are checked")
	}
	sig, err := base64.StdEncoding.DecodeString(it.Signature)
	if err != nil || len(sig) == 0 {
		return Key{}, errors.New("the signature annotation is not base64")
	}
	return verifyWithKeys(keys, payload, sig)
}

// bundle is the part of a Sigstore bundle (v0.1 to v0.3) read here.
type sigBundle struct {
	MediaType            string `json:"mediaType"`
	VerificationMaterial struct {
		PublicKey   *json.RawMessage `json:"publicKey"`
		Certificate *json.RawMessage `json:"certificate"`
		X509Chain   *json.RawMessage `json:"x509CertificateChain"`
	} `json:"verificationMaterial"`
	MessageSignature *struct {
		MessageDigest struct {
			Algorithm string `json:"algorithm"`
			Digest    []byte `json:"digest"`
		} `json:"messageDigest"`
		Signature []byte `json:"signature"`
	} `json:"messageSignature"`
	DSSEEnvelope *struct {
		Payload     []byte `json:"payload"`
		PayloadType string `json:"payloadType"`
		Signatures  []struct {
			Sig []byte `json:"sig"`
		} `json:"signatures"`
	} `json:"dsseEnvelope"`
}

// checkBundle verifies a Sigstore bundle attached to the manifest d (whose
// bytes are manifest): a message signature over the manifest, or a DSSE
// envelope whose in-toto statement has d as a subject, signed with one of
// keys.
func checkBundle(b []byte, d string, manifest []byte, keys []Key) (Key, error) {
	var bu sigBundle
	if err := json.Unmarshal(b, &bu); err != nil {
		return Key{}, fmt.Errorf("not a Sigstore bundle: %v", err)
	}
	if !strings.HasPrefix(bu.MediaType, "application/vnd.dev.sigstore.bundle") {
		return Key{}, fmt.Errorf("media type %q is not a Sigstore bundle's", bu.MediaType)
	}
	if bu.VerificationMaterial.PublicKey == nil {
		return Key{}, errors.New("the bundle names no public key")
	}
	switch {
	case bu.MessageSignature != nil:
		ms := bu.MessageSignature
		sum := sha256.Sum256(manifest)
		if ms.MessageDigest.Algorithm != "SHA2_256" || !bytes.Equal(ms.MessageDigest.Digest, sum[:]) {
			return Key{}, fmt.Errorf("its message digest (%s %x) is not this plugin's %s", ms.MessageDigest.Algorithm, ms.MessageDigest.Digest, d)
		}
		return verifyWithKeys(keys, manifest, ms.Signature)
	case bu.DSSEEnvelope != nil:
		env := bu.DSSEEnvelope
		if env.PayloadType != inTotoPayloadType {
			return Key{}, fmt.Errorf("DSSE payload type %q, not %q", env.PayloadType, inTotoPayloadType)
		}
		if err := statementNames(env.Payload, d); err != nil {
			return Key{}, err
		}
		pae := dssePAE(env.PayloadType, env.Payload)
		var last error = errors.New("the envelope has no signature")
		for _, s := range env.Signatures {
			k, err := verifyWithKeys(keys, pae, s.Sig)
			if err == nil {
				return k, nil
			}
			last = err
		}
		return Key{}, last
	}
	return Key{}, errors.New("the bundle has neither a message signature nor a DSSE envelope")
}

// statementNames checks that an in-toto statement has d among its subjects.
func statementNames(payload []byte, d string) error {
	var st struct {
		Type    string `json:"_type"`
		Subject []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return fmt.Errorf("the DSSE payload is not an in-toto statement: %v", err)
	}
	if !strings.HasPrefix(st.Type, "https://in-toto.io/Statement/") {
		return fmt.Errorf("the DSSE payload's _type is %q, not an in-toto statement", st.Type)
	}
	want := strings.TrimPrefix(d, "sha256:")
	for _, s := range st.Subject {
		if strings.EqualFold(s.Digest["sha256"], want) {
			return nil
		}
	}
	return fmt.Errorf("the statement's subjects do not include this plugin's %s", d)
}

// dssePAE is DSSE's pre-authentication encoding, what a DSSE signature
// signs.
func dssePAE(payloadType string, payload []byte) []byte {
	return fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(payloadType), payloadType, len(payload), payload)
}

// verifyWithKeys returns the first key sig verifies msg with, as cosign
// signs: ECDSA (ASN.1) over the curve's hash (SHA-256 for P-256), RSA
// PKCS #1 v1.5 over SHA-256, Ed25519 over the message itself.
func verifyWithKeys(keys []Key, msg, sig []byte) (Key, error) {
	if len(keys) == 0 {
		return Key{}, errors.New("no key to check it with")
	}
	for _, k := range keys {
		if verifyKey(k.Public, msg, sig) {
			return k, nil
		}
	}
	if len(keys) == 1 {
		return Key{}, fmt.Errorf("it does not verify with the key %s (signed by another key, or altered)", keys[0].Name)
	}
	return Key{}, fmt.Errorf("it verifies with none of the %d keys (signed by another key, or altered)", len(keys))
}

func verifyKey(pub crypto.PublicKey, msg, sig []byte) bool {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		var h []byte
		switch k.Curve {
		case elliptic.P384():
			s := sha512.Sum384(msg)
			h = s[:]
		case elliptic.P521():
			s := sha512.Sum512(msg)
			h = s[:]
		default:
			s := sha256.Sum256(msg)
			h = s[:]
		}
		return ecdsa.VerifyASN1(k, h, sig)
	case *rsa.PublicKey:
		h := sha256.Sum256(msg)
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, h[:], sig) == nil
	case ed25519.PublicKey:
		return ed25519.Verify(k, msg, sig)
	}
	return false
}

// sigTag is the tag cosign stores a manifest's signatures under.
func sigTag(d string) string {
	return strings.Replace(d, ":", "-", 1) + ".sig"
}
