package main

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"net/url"
	"strings"
	"unicode/utf8"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

// data is the input of hash and encode: text, or bytes given as base64.
type data struct {
	Text   *string `json:"text"`
	Base64 *string `json:"base64"`
}

func (d data) bytes() ([]byte, error) {
	switch {
	case d.Text != nil && d.Base64 != nil:
		return nil, errorf("give either text or base64, not both")
	case d.Text != nil:
		return []byte(*d.Text), nil
	case d.Base64 != nil:
		b, err := decodeBase64(*d.Base64)
		if err != nil {
			return nil, errorf("base64: %v", err)
		}
		return b, nil
	}
	return nil, errorf("give the input as text or as base64")
}

var hashes = map[string]func() hash.Hash{
	"sha256": sha256.New, "sha1": sha1.New, "md5": md5.New, "sha512": sha512.New,
	"sha384": sha512.New384, "sha224": sha256.New224,
	"crc32": func() hash.Hash { return crc32.NewIEEE() },
}

func hashTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	a := struct {
		data
		Algorithm string  `json:"algorithm"`
		HMACKey   *string `json:"hmac_key"`
	}{Algorithm: "sha256"}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	in, err := a.bytes()
	if err != nil {
		return nil, err
	}
	newHash, ok := hashes[a.Algorithm]
	if !ok {
		return nil, errorf("unknown algorithm %q; use sha256, sha1, md5, sha512, sha384, sha224 or crc32", a.Algorithm)
	}
	var h hash.Hash
	if a.HMACKey != nil {
		if a.Algorithm == "crc32" {
			return nil, errorf("HMAC needs a cryptographic hash; crc32 is a checksum")
		}
		h = hmac.New(newHash, []byte(*a.HMACKey))
	} else {
		h = newHash()
	}
	h.Write(in)
	sum := h.Sum(nil)
	return mcpwasm.JSON(struct {
		Algorithm  string `json:"algorithm"`
		HMAC       bool   `json:"hmac"`
		InputBytes int    `json:"input_bytes"`
		Hex        string `json:"hex"`
		Base64     string `json:"base64"`
	}{a.Algorithm, a.HMACKey != nil, len(in), hex.EncodeToString(sum), base64.StdEncoding.EncodeToString(sum)}), nil
}

func encodeTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		data
		Encoding string `json:"encoding"`
		Padding  *bool  `json:"padding"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	in, err := a.bytes()
	if err != nil {
		return nil, err
	}
	pad := func(dflt bool) bool {
		if a.Padding != nil {
			return *a.Padding
		}
		return dflt
	}
	switch a.Encoding {
	case "base64":
		enc := base64.StdEncoding
		if !pad(true) {
			enc = base64.RawStdEncoding
		}
		return mcpwasm.Text(enc.EncodeToString(in)), nil
	case "base64url":
		enc := base64.RawURLEncoding
		if pad(false) {
			enc = base64.URLEncoding
		}
		return mcpwasm.Text(enc.EncodeToString(in)), nil
	case "hex":
		return mcpwasm.Text(hex.EncodeToString(in)), nil
	case "url":
		return mcpwasm.Text(url.QueryEscape(string(in))), nil
	case "url_path":
		return mcpwasm.Text(url.PathEscape(string(in))), nil
	}
	return nil, unknownEncoding(a.Encoding)
}

func unknownEncoding(e string) error {
	return errorf("unknown encoding %q; use base64, base64url, hex, url or url_path", e)
}

func decodeTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		Text     string `json:"text"`
		Encoding string `json:"encoding"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	var out []byte
	var err error
	switch a.Encoding {
	case "base64", "base64url":
		out, err = decodeBase64(a.Text)
	case "hex":
		s := strings.Map(func(r rune) rune {
			if r == ':' || r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, a.Text)
		s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		out, err = hex.DecodeString(s)
	case "url":
		var s string
		s, err = url.QueryUnescape(a.Text)
		out = []byte(s)
	case "url_path":
		var s string
		s, err = url.PathUnescape(a.Text)
		out = []byte(s)
	default:
		return nil, unknownEncoding(a.Encoding)
	}
	if err != nil {
		return nil, errorf("not valid %s: %v", a.Encoding, err)
	}
	if utf8.Valid(out) {
		return mcpwasm.Text(string(out)), nil
	}
	return mcpwasm.JSON(struct {
		Note   string `json:"note"`
		Bytes  int    `json:"bytes"`
		Base64 string `json:"base64"`
		Hex    string `json:"hex,omitempty"`
	}{"the decoded bytes are not UTF-8 text", len(out), base64.StdEncoding.EncodeToString(out), hexPreview(out)}), nil
}

// hexPreview is the hex of b when it is short enough to be worth reading.
func hexPreview(b []byte) string {
	if len(b) > 4096 {
		return ""
	}
	return hex.EncodeToString(b)
}

// decodeBase64 decodes standard or URL-safe base64, with or without
// padding, ignoring whitespace.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\n', '\r', '\t':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}
