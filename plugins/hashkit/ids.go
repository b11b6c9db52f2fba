package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

func uuidTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	a := struct {
		Count   int `json:"count"`
		Version int `json:"version"`
	}{Count: 1, Version: 4}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	if a.Count < 1 || a.Count > 100 {
		return nil, errorf("count must be between 1 and 100, not %d", a.Count)
	}
	if a.Version != 4 && a.Version != 7 {
		return nil, errorf("version must be 4 or 7, not %d", a.Version)
	}
	ids := make([]string, a.Count)
	for i := range ids {
		u, err := newUUID(a.Version, time.Now())
		if err != nil {
			return nil, err
		}
		ids[i] = u
	}
	return mcpwasm.JSON(struct {
		UUIDs []string `json:"uuids"`
	}{ids}), nil
}

// newUUID makes an RFC 9562 version 4 or 7 UUID; crypto/rand reads WASI
// random_get, which mcpwasm backs with the OS CSPRNG.
func newUUID(version int, now time.Time) (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", errorf("no random bytes: %v", err)
	}
	if version == 7 {
		var ms [8]byte
		binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
		copy(u[:6], ms[2:])
	}
	u[6] = u[6]&0x0f | byte(version)<<4
	u[8] = u[8]&0x3f | 0x80 // the RFC 4122/9562 variant
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

func jwtTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		Token string `json:"token"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	tok := strings.TrimSpace(a.Token)
	if len(tok) > 7 && strings.EqualFold(tok[:7], "bearer ") {
		tok = strings.TrimSpace(tok[7:])
	}
	parts := strings.Split(tok, ".")
	switch len(parts) {
	case 3:
	case 5:
		return nil, errorf("this is an encrypted token (JWE, 5 parts); its claims cannot be read without the key")
	default:
		return nil, errorf("a JWT has 3 parts separated by '.', this has %d", len(parts))
	}
	header, err := jwtPart("header", parts[0])
	if err != nil {
		return nil, err
	}
	payload, err := jwtPart("payload", parts[1])
	if err != nil {
		return nil, err
	}
	if len(payload) == 0 || payload[0] != '{' {
		return nil, errorf("the payload is not a JSON object of claims")
	}
	var claims map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&claims); err != nil {
		return nil, errorf("the payload is not a JSON object of claims: %v", err)
	}
	now := time.Now()
	times := map[string]claimTime{}
	for _, name := range []string{"exp", "nbf", "iat"} {
		n, ok := claims[name].(json.Number)
		if !ok {
			continue
		}
		f, err := n.Float64()
		if err != nil {
			continue
		}
		t := time.Unix(int64(f), 0).UTC()
		ct := claimTime{UTC: t.Format(time.RFC3339), Relative: relative(t.Sub(now))}
		switch name {
		case "exp":
			expired := !now.Before(t)
			ct.Expired = &expired
		case "nbf":
			notYet := now.Before(t)
			ct.NotYetValid = &notYet
		}
		times[name] = ct
	}
	return mcpwasm.JSON(struct {
		Verified  bool                 `json:"signature_verified"`
		Warning   string               `json:"warning"`
		Header    json.RawMessage      `json:"header"`
		Payload   json.RawMessage      `json:"payload"`
		Times     map[string]claimTime `json:"times,omitempty"`
		Signature string               `json:"signature_base64url"`
	}{false, "the signature was not checked; do not trust these claims", header, payload, times, parts[2]}), nil
}

type claimTime struct {
	UTC         string `json:"utc"`
	Relative    string `json:"relative"`
	Expired     *bool  `json:"expired,omitempty"`
	NotYetValid *bool  `json:"not_yet_valid,omitempty"`
}

// jwtPart decodes one base64url part and checks it is JSON.
func jwtPart(name, s string) (json.RawMessage, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, errorf("the %s is not base64url: %v", name, err)
	}
	if !json.Valid(b) {
		return nil, errorf("the %s is not JSON", name)
	}
	return json.RawMessage(b), nil
}

// relative says how far d is from now: "in 2h0m0s" or "3d 4h ago".
func relative(d time.Duration) string {
	if d >= 0 {
		return "in " + human(d)
	}
	return human(-d) + " ago"
}

// human writes a duration in days, hours, minutes and seconds, leaving out
// zero units: "3d 4h", "1h 0m 5s" is "1h 5s", zero is "0s".
func human(d time.Duration) string {
	d = d.Round(time.Second)
	var parts []string
	for _, u := range []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.size; n > 0 {
			parts = append(parts, itoa(int64(n))+u.name)
			d -= n * u.size
		}
	}
	if len(parts) == 0 {
		return "0s"
	}
	return strings.Join(parts, " ")
}
