//go:build !wasip1

package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyLCJleHAiOjE1MTYyNDI2MjJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

func TestTools(t *testing.T) {
	for _, tc := range []struct {
		tool, args, want string
		isError          bool
	}{
		{"hash", `{"text":"hello"}`, `{"algorithm":"sha256","hmac":false,"input_bytes":5,"hex":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","base64":"LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="}`, false},
		{"hash", `{"base64":"aGVsbG8","algorithm":"md5"}`, `{"algorithm":"md5","hmac":false,"input_bytes":5,"hex":"5d41402abc4b2a76b9719d911017c592","base64":"XUFAKrxLKna5cZ2REBfFkg=="}`, false},
		{"hash", `{"text":"hello","algorithm":"sha1"}`, `{"algorithm":"sha1","hmac":false,"input_bytes":5,"hex":"aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d","base64":"qvTGHdzF6KLavt4PO0gs2a6pQ00="}`, false},
		{"hash", `{"text":"hello","algorithm":"crc32"}`, `{"algorithm":"crc32","hmac":false,"input_bytes":5,"hex":"3610a686","base64":"NhCmhg=="}`, false},
		{"hash", `{"text":"The quick brown fox jumps over the lazy dog","algorithm":"sha256","hmac_key":"key"}`, `{"algorithm":"sha256","hmac":true,"input_bytes":43,"hex":"f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8","base64":"97yD9DBThCSxMpjmqm+xQ+9NWaFJRhdZl0edvC0aPNg="}`, false},
		{"hash", `{"text":"a","base64":"YQ=="}`, "give either text or base64, not both", true},
		{"hash", `{}`, "give the input as text or as base64", true},
		{"hash", `{"base64":"!!"}`, "base64: illegal base64 data at input byte 0", true},
		{"hash", `{"text":"x","algorithm":"crc32","hmac_key":"k"}`, "HMAC needs a cryptographic hash; crc32 is a checksum", true},
		{"hash", `{"text":"x","algorithm":"sha3"}`, `unknown algorithm "sha3"; use sha256, sha1, md5, sha512, sha384, sha224 or crc32`, true},

		{"encode", `{"text":"héllo?","encoding":"base64"}`, "aMOpbGxvPw==", false},
		{"encode", `{"text":"héllo?","encoding":"base64","padding":false}`, "aMOpbGxvPw", false},
		{"encode", `{"text":"\u00ff\u00fe?","encoding":"base64url"}`, "w7_Dvj8", false},
		{"encode", `{"text":"\u00ff\u00fe?","encoding":"base64url","padding":true}`, "w7_Dvj8=", false},
		{"encode", `{"base64":"/+8=","encoding":"hex"}`, "ffef", false},
		{"encode", `{"text":"a b&c=d/é","encoding":"url"}`, "a+b%26c%3Dd%2F%C3%A9", false},
		{"encode", `{"text":"a b&c=d/é","encoding":"url_path"}`, "a%20b&c=d%2F%C3%A9", false},
		{"encode", `{"text":"x","encoding":"rot13"}`, `unknown encoding "rot13"; use base64, base64url, hex, url or url_path`, true},

		{"decode", `{"text":"aMOpbGxv\nPw==","encoding":"base64"}`, "héllo?", false},
		{"decode", `{"text":"w7_Dvj8","encoding":"base64url"}`, "\u00ff\u00fe?", false},
		{"decode", `{"text":"0x68:69","encoding":"hex"}`, "hi", false},
		{"decode", `{"text":"DEADBEEF","encoding":"hex"}`, `{"note":"the decoded bytes are not UTF-8 text","bytes":4,"base64":"3q2+7w==","hex":"deadbeef"}`, false},
		{"decode", `{"text":"a+b%26","encoding":"url"}`, "a b&", false},
		{"decode", `{"text":"a+b%20","encoding":"url_path"}`, "a+b ", false},
		{"decode", `{"text":"abc","encoding":"hex"}`, "not valid hex: encoding/hex: odd length hex string", true},
		{"decode", `{"text":"%zz","encoding":"url"}`, `not valid url: invalid URL escape "%zz"`, true},

		{"uuid", `{"count":0}`, "count must be between 1 and 100, not 0", true},
		{"uuid", `{"version":5}`, "version must be 4 or 7, not 5", true},

		{"jwt_decode", `{"token":"a.b"}`, "a JWT has 3 parts separated by '.', this has 2", true},
		{"jwt_decode", `{"token":"a.b.c.d.e"}`, "this is an encrypted token (JWE, 5 parts); its claims cannot be read without the key", true},
		{"jwt_decode", `{"token":"e30.!!.x"}`, "the payload is not base64url: illegal base64 data at input byte 0", true},
		{"jwt_decode", `{"token":"e30.WzFd.x"}`, "the payload is not a JSON object of claims", true},

		{"time", `{"at":"2024-01-31","add":"P1M"}`, `"time":"2024-02-29T00:00:00Z"`, false},
		{"time", `{"at":"2023-01-31T10:00:00Z","add":"P1M1D"}`, `"time":"2023-03-01T10:00:00Z"`, false},
		{"time", `{"at":"2024-03-31","add":"-P1M"}`, `"time":"2024-02-29T00:00:00Z"`, false},
		{"time", `{"zone":"Europe/Paris","at":"2024-03-30 12:00","add":"P1D"}`, `"time":"2024-03-31T12:00:00+02:00","abbreviation":"CEST","utc_offset":"+02:00","dst":true`, false},
		{"time", `{"zone":"Europe/Paris","at":"2024-03-30 12:00","add":"24h"}`, `"time":"2024-03-31T13:00:00+02:00"`, false},
		{"time", `{"zone":"Europe/Paris","at":"2024-03-30 12:00","add":"1d"}`, `"time":"2024-03-31T12:00:00+02:00"`, false},
		{"time", `{"at":"1710081000","add":"-1h30m"}`, `"time":"2024-03-10T13:00:00Z"`, false},
		{"time", `{"at":"1710081000123","zone":"+05:30"}`, `"time":"2024-03-10T20:00:00.123+05:30"`, false},
		{"time", `{"at":"2024-03-10T14:30:00+01:00","zone":"UTC-3"}`, `"time":"2024-03-10T10:30:00-03:00"`, false},
		{"time", `{"at":"2024-03-10","add":"PT1.5S"}`, `"time":"2024-03-10T00:00:01.5Z"`, false},
		{"time", `{"at":"2024-03-10","add":"P2W3DT4H"}`, `"time":"2024-03-27T04:00:00Z"`, false},
		{"time", `{"at":"2024-12-30","until":"2025-01-01 06:00"}`, `"until":{"time":"2025-01-01T06:00:00Z","seconds":194400,"human":"2d 6h","calendar_days":2}`, false},
		{"time", `{"at":"2024-12-30","until":"2024-12-29"}`, `"human":"-1d","calendar_days":-1`, false},
		{"time", `{"at":"2024-06-01T12:00:00Z","convert_to":["America/New_York","Asia/Kolkata"]}`, `"converted":[{"zone":"America/New_York","time":"2024-06-01T08:00:00-04:00","abbreviation":"EDT","utc_offset":"-04:00","dst":true},{"zone":"Asia/Kolkata","time":"2024-06-01T17:30:00+05:30","abbreviation":"IST","utc_offset":"+05:30","dst":false}]`, false},
		{"time", `{"at":"2024-01-01","zone":"Europe/Berlin"}`, `"date":"2024-01-01","clock":"00:00:00","weekday":"Monday","iso_week":"2024-W01","day_of_year":1,"unix":1704063600`, false},
		{"time", `{"zone":"Mars/Olympus"}`, `unknown time zone "Mars/Olympus"; use an IANA name like Europe/Paris or America/New_York, or an offset like +05:30`, true},
		{"time", `{"zone":"Local"}`, `the plugin has no local time zone; name one, like Europe/Paris`, true},
		{"time", `{"at":"next tuesday"}`, `cannot read time "next tuesday"; use RFC 3339 (2024-03-10T14:30:00Z), a date (2024-03-10), a date and time (2024-03-10 14:30) or Unix seconds`, true},
		{"time", `{"add":"P1H"}`, `cannot read duration "P1H"; use ISO 8601 like P1DT2H, P3W, -P1M, or units like 90m, 1h30m, 2d, -36h`, true},
		{"time", `{"add":"1.5d"}`, `cannot read duration "1.5d"`, true},
	} {
		inv := mcpwasm.Invoke(tc.tool, tc.args)
		got := inv.Text()
		ok := got == tc.want
		if tc.tool == "time" && !tc.isError {
			ok = strings.Contains(got, tc.want)
		}
		if tc.tool == "time" && tc.isError {
			ok = strings.HasPrefix(got, tc.want)
		}
		if inv.Err != nil || !ok || inv.Result.IsError != tc.isError {
			t.Errorf("%s %s:\ngot  %s (isError %v, err %v)\nwant %s", tc.tool, tc.args, got, inv.Result.IsError, inv.Err, tc.want)
		}
	}
}

func TestUUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	v7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	var r struct{ UUIDs []string }
	if err := json.Unmarshal([]byte(mcpwasm.Invoke("uuid", `{"count":100}`).Text()), &r); err != nil || len(r.UUIDs) != 100 {
		t.Fatalf("%v %v", err, r)
	}
	seen := map[string]bool{}
	for _, u := range r.UUIDs {
		if !v4.MatchString(u) || seen[u] {
			t.Errorf("bad or repeated v4 %s", u)
		}
		seen[u] = true
	}
	now := time.Now()
	u, _ := newUUID(7, now)
	if !v7.MatchString(u) || !strings.HasPrefix(strings.ReplaceAll(u, "-", ""), itoaHex(now.UnixMilli())) {
		t.Errorf("v7 %s does not start with the time %x", u, now.UnixMilli())
	}
}

func itoaHex(ms int64) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 12)
	for i := 11; i >= 0; i-- {
		b[i] = digits[ms&15]
		ms >>= 4
	}
	return string(b)
}

func TestJWT(t *testing.T) {
	inv := mcpwasm.Invoke("jwt_decode", `{"token":"Bearer `+jwt+`"}`)
	var r struct {
		Verified bool `json:"signature_verified"`
		Header   map[string]any
		Payload  map[string]any
		Times    map[string]struct {
			UTC     string
			Expired *bool
		}
		Signature string `json:"signature_base64url"`
	}
	if err := json.Unmarshal([]byte(inv.Text()), &r); err != nil {
		t.Fatal(err, inv.Text())
	}
	if r.Verified || r.Header["alg"] != "HS256" || r.Payload["name"] != "John Doe" ||
		r.Times["exp"].UTC != "2018-01-18T02:30:22Z" || r.Times["exp"].Expired == nil || !*r.Times["exp"].Expired ||
		r.Times["iat"].UTC != "2018-01-18T01:30:22Z" || r.Signature != "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c" {
		t.Errorf("decoded %+v", r)
	}
}
