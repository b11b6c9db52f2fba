package server

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

// maxRequestState bounds the answers carried between round trips.
const maxRequestState = 1 << 20

// stateLifetime bounds how long a client may take to answer.
const stateLifetime = 15 * time.Minute

// roundState is what requestState carries, signed: the answers gathered so
// far, and what binds them to one request — what was called, its
// arguments, who asked (the authenticated principal), the requests issued
// in the last round (id to method), a nonce and an expiry.
type roundState struct {
	What    string                     `json:"what"`
	Args    string                     `json:"args"`
	Who     string                     `json:"who,omitempty"`
	Issued  map[string]string          `json:"issued"`
	Answers map[string]json.RawMessage `json:"answers"`
	Nonce   string                     `json:"nonce"`
	Expires int64                      `json:"exp"` // Unix seconds
}

// argsHash identifies a call's arguments whatever their key order or
// spacing.
func argsHash(args json.RawMessage) string {
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

// requestState travels through the client, so it is signed: the client may
// answer a request as it likes, but cannot invent answers to requests the
// server never made, or replay another call's state.
func sealState(key, state []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(state)
	return base64.RawURLEncoding.EncodeToString(state) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func openState(key []byte, sealed string) ([]byte, error) {
	body, sig, ok := strings.Cut(sealed, ".")
	if !ok || len(body) > 2*maxRequestState {
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
