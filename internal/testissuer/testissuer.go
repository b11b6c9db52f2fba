// Package testissuer is an OAuth issuer for tests: an httptest server
// publishing a JWKS of a freshly generated ECDSA P-256 key, and a signer of
// access tokens with that key (or another one, for negative tests).
package testissuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer serves /jwks.json and signs tokens.
type Issuer struct {
	// URL is the issuer identifier (the server's base URL).
	URL string
	// JWKSURL is where the keys are published.
	JWKSURL string

	mu   sync.Mutex
	key  *ecdsa.PrivateKey
	kid  string
	jwks []byte
}

// KeyID is the kid of the key published first.
const KeyID = "test-key-1"

// New starts an issuer, closed when the test ends.
func New(t testing.TB) *Issuer {
	t.Helper()
	i := &Issuer{}
	i.Rotate(t, KeyID)
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks.json", func(w http.ResponseWriter, r *http.Request) {
		i.mu.Lock()
		defer i.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(i.jwks)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	i.URL, i.JWKSURL = hs.URL, hs.URL+"/jwks.json"
	return i
}

// Rotate replaces the signing key by a new one with key id kid, and
// publishes only it.
func (i *Issuer) Rotate(t testing.TB, kid string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	raw := pub.Bytes() // 0x04 || X || Y
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
		"x": b64(raw[1:33]), "y": b64(raw[33:]),
	}}})
	i.mu.Lock()
	i.key, i.kid, i.jwks = key, kid, jwks
	i.mu.Unlock()
}

// Claims returns valid claims for a subject and audience, expiring in an
// hour.
func (i *Issuer) Claims(subject, audience, scope string) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"iss": i.URL, "sub": subject, "aud": audience,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if scope != "" {
		c["scope"] = scope
	}
	return c
}

// Sign signs claims with the published key (ES256, kid KeyID).
func (i *Issuer) Sign(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	i.mu.Lock()
	key, kid := i.key, i.kid
	i.mu.Unlock()
	return sign(t, key, kid, c)
}

// SignWithOtherKey signs claims with a key that is not published, under
// the published kid.
func (i *Issuer) SignWithOtherKey(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	i.mu.Lock()
	kid := i.kid
	i.mu.Unlock()
	return sign(t, other, kid, c)
}

// Unsigned returns the claims as an alg=none token.
func Unsigned(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, c)
	tok.Header["kid"] = KeyID
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sign(t testing.TB, key *ecdsa.PrivateKey, kid string, c jwt.MapClaims) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
