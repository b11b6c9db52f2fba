// Package reqstate is the requestState of protocol 2026-07-28's multi
// round-trip requests: what the server carries through the client between
// rounds (the answers so far, and what binds them to one request), signed
// so the client cannot invent answers or replay another call's state.
package reqstate

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// MaxBytes bounds the answers carried between round trips.
const MaxBytes = 1 << 20

// Lifetime bounds how long a client may take to answer.
const Lifetime = 15 * time.Minute

// State is what requestState carries, signed: the answers gathered so
// far, and what binds them to one request — what was called, its
// arguments, who asked (the authenticated principal), the requests issued
// in the last round (id to method), a nonce and an expiry.
type State struct {
	What    string                     `json:"what"`
	Args    string                     `json:"args"`
	Who     string                     `json:"who,omitempty"`
	Issued  map[string]string          `json:"issued"`
	Answers map[string]json.RawMessage `json:"answers"`
	Nonce   string                     `json:"nonce"`
	Expires int64                      `json:"exp"` // Unix seconds
}

// ArgsHash identifies a call's arguments whatever their key order or
// spacing.
func ArgsHash(args json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	canonical := []byte("{}")
	if d.Decode(&v) == nil && v != nil {
		canonical, _ = json.Marshal(v)
	}
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Seal signs state with key for its trip through the client, which may
// answer a request as it likes but cannot invent answers to requests the
// server never made, or replay another call's state.
func Seal(key, state []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(state)
	return base64.RawURLEncoding.EncodeToString(state) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Open checks a sealed state's signature with key and returns the state.
func Open(key []byte, sealed string) ([]byte, error) {
	body, sig, ok := strings.Cut(sealed, ".")
	if !ok || len(body) > 2*MaxBytes {
		return nil, errors.New("malformed")
	}
	state, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, errors.New("malformed")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(state)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errors.New("bad signature")
	}
	return state, nil
}
