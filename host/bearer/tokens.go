// Package bearer verifies the bearer tokens of Streamable HTTP requests:
// static tokens read from a file, and OAuth 2.1 access tokens (JWTs signed
// by an issuer whose keys are published as a JWKS). It produces go-sdk
// auth.TokenVerifier functions; the server wires them into
// auth.RequireBearerToken, which answers 401 with WWW-Authenticate.
//
// The principal of a request, auth.TokenInfo.UserID, is a static token's
// name or a JWT's subject; the audit log records it.
package bearer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Tokens is a set of static bearer tokens. Only their SHA-256 digests are
// kept in memory; a presented token is hashed and compared with every
// digest in constant time.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	name   string
	digest [sha256.Size]byte
	scopes []string
}

// MinTokenLength is the shortest static token accepted (16 characters):
// a token must not be guessable.
const MinTokenLength = 16

// LoadTokens reads a tokens file. The format is one token per line:
//
//	# comment
//	NAME TOKEN [SCOPE ...]
//
// NAME is the principal the audit log records; TOKEN is the secret the
// client sends as "Authorization: Bearer TOKEN"; the optional SCOPEs are
// granted to it (see Policy). Names and tokens must be unique. warning is
// non-empty when the file can be read by its group or others.
func LoadTokens(path string) (t *Tokens, warning string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("tokens file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o007 != 0 { // not the group: on Kubernetes it is the pod's fsGroup
		warning = fmt.Sprintf("tokens file %s is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	t, err = ParseTokens(f, path)
	return t, warning, err
}

// ParseTokens reads tokens in LoadTokens' format from r; name is used in
// messages.
func ParseTokens(r interface{ Read([]byte) (int, error) }, name string) (*Tokens, error) {
	t := &Tokens{}
	names := map[string]int{}
	digests := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 2 {
			return nil, fmt.Errorf("%s:%d: want \"NAME TOKEN [SCOPE ...]\"", name, line)
		}
		if len(f[1]) < MinTokenLength {
			return nil, fmt.Errorf("%s:%d: the token of %q is %d characters; at least %d are required", name, line, f[0], len(f[1]), MinTokenLength)
		}
		if prev, dup := names[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: the name %q is already used on line %d", name, line, f[0], prev)
		}
		d := sha256.Sum256([]byte(f[1]))
		if prev, dup := digests[d]; dup {
			return nil, fmt.Errorf("%s:%d: the token of %q is the same as on line %d", name, line, f[0], prev)
		}
		names[f[0]], digests[d] = line, line
		t.entries = append(t.entries, tokenEntry{name: f[0], digest: d, scopes: f[2:]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(t.entries) == 0 {
		return nil, fmt.Errorf("%s: no tokens", name)
	}
	return t, nil
}

// Len returns the number of tokens.
func (t *Tokens) Len() int { return len(t.entries) }

// staticLifetime is the expiration given to a static token's TokenInfo:
// go-sdk requires one; a static token lives as long as the file lists it.
const staticLifetime = 24 * time.Hour

// lookup returns the token's entry, comparing against every digest so
// that the time taken does not depend on which one matched, if any.
func (t *Tokens) lookup(token string) *tokenEntry {
	d := sha256.Sum256([]byte(token))
	var found *tokenEntry
	for i := range t.entries {
		if subtle.ConstantTimeCompare(d[:], t.entries[i].digest[:]) == 1 {
			found = &t.entries[i]
		}
	}
	return found
}

// Verify checks a static token: auth.ErrInvalidToken if it is not listed.
func (t *Tokens) Verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	e := t.lookup(token)
	if e == nil {
		return nil, fmt.Errorf("%w: unknown static token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: e.name, Scopes: append([]string(nil), e.scopes...),
		Expiration: time.Now().Add(staticLifetime), Extra: map[string]any{"kind": "static"}}, nil
}
