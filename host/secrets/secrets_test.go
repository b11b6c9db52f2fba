package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

const secret = `s3cr3t-T0ken/with"quote<and>amp&`

func TestRedactForms(t *testing.T) {
	r, short := New([]string{secret, "abc", "  other-secret-value\n"})
	if len(short) != 1 || short[0] != 1 {
		t.Fatalf("short = %v", short)
	}
	jsonOf := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + secret))
	mime := base64.StdEncoding.EncodeToString([]byte("x" + secret + "tail"))
	mime = mime[:10] + "\r\n" + mime[10:20] + "\n" + mime[20:]
	cases := map[string]string{
		"raw":                "token is " + secret + " ok",
		"json":               `{"text":` + jsonOf(secret) + `}`,
		"json no html":       `{"a":"s3cr3t-T0ken/with\"quote<and>amp&"}`,
		"json slash":         `{"a":"s3cr3t-T0ken\/with\"quote\u003cand\u003eamp\u0026"}`,
		"split lines":        "s3cr3t-T0ken/with\"quo\nte<and>amp&",
		"split early":        "s3\ncr3t-T0ken/with\"quote<and>amp&",
		"split json escape":  `"s3cr3t-T0ken/with\"quote<a` + `\n` + `nd>amp&"`,
		"basic auth":         "Authorization: Basic " + basic,
		"base64 mime offset": mime,
		"base64 url":         base64.URLEncoding.EncodeToString([]byte("ab" + secret)),
		"hex":                hex.EncodeToString([]byte(secret)),
		"HEX":                strings.ToUpper(hex.EncodeToString([]byte(secret))),
		"other":              "other-secret-value",
	}
	for name, in := range cases {
		out, n := r.Redact(in)
		if n == 0 || !strings.Contains(out, Marker) {
			t.Errorf("%s: not redacted: %q", name, out)
			continue
		}
		for _, part := range []string{"s3cr3t", "T0ken", "other-secret"} {
			if strings.Contains(out, part) {
				t.Errorf("%s: %q left in %q", name, part, out)
			}
		}
	}
	clean := "nothing to see: abc, s3cr3t alone, T0ken alone"
	if out, n := r.Redact(clean); n != 0 || out != clean {
		t.Fatalf("clean text changed: %q", out)
	}
	// JSON stays JSON when a secret inside a string is replaced.
	out, _ := r.Redact(`{"a":` + jsonOf("x "+secret+" y") + `,"b":"` + base64.StdEncoding.EncodeToString([]byte(secret)) + `"}`)
	if !json.Valid([]byte(out)) {
		t.Fatalf("not JSON after redaction: %s", out)
	}
	var empty *Redactor
	if out, n := empty.Redact(secret); out != secret || n != 0 {
		t.Fatal("nil redactor changed text")
	}
}

func TestDetectKinds(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----"
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	cases := map[Kind][]string{
		PrivateKey:   {pem, strings.ReplaceAll(pem, "\n", `\n`), "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n", "-----BEGIN PRIVATE KEY-----MIIE", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----"},
		AWSKey:       {"AKIAIOSFODNN7EXAMPLE", "key=ASIAY34FZKBOKMUTVV7A;"},
		GitHubToken:  {"ghp_" + strings.Repeat("aB3", 12), "token gho_" + strings.Repeat("Z9", 18) + ".", "github_pat_11ABCDEFG0" + strings.Repeat("x1Y_", 18)},
		GitLabToken:  {"glpat-" + strings.Repeat("Ab1_", 5), "glrt-" + strings.Repeat("k9", 12), "GR1348941" + strings.Repeat("Zz9", 7)},
		SlackToken:   {"xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxp-12345-67890-abcdef", "xapp-1-A0123456789-1234567890-abcdef"},
		SlackWebhook: {"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
		JWT:          {jwt, "Bearer " + jwt + "\n"},
	}
	for kind, ins := range cases {
		for _, in := range ins {
			ms := Detect(in)
			if len(ms) != 1 || ms[0].Kind != kind {
				t.Errorf("%s: %q: got %v", kind, in, ms)
				continue
			}
			out, _ := RedactFormats(in)
			if !strings.Contains(out, "[REDACTED:"+string(kind)+"]") {
				t.Errorf("%s: %q redacted as %q", kind, in, out)
			}
		}
	}
	for _, ok := range []string{
		"AKIAIOSFODNN7EXAMPLEX", "xAKIAIOSFODNN7EXAMPLE", "AKIA1111", // too long, inside a word, too short
		"ghp_short", "light_" + strings.Repeat("a", 36), "ghp_" + strings.Repeat("a", 37),
		"glpat-short", "global-" + strings.Repeat("a", 30),
		"xoxb-short", "xoxo-1234567890abc",
		"eyJub3RhIjoiand0In0.eyJhIjoxfQ.sig", // header without alg
		"eyJhbGciOiJIUzI1NiJ9",               // no payload
		"-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"https://hooks.slack.com/services/whatever",
	} {
		if ms := Detect(ok); len(ms) != 0 {
			t.Errorf("%q: flagged %v", ok, ms)
		}
	}
}

func TestPolicy(t *testing.T) {
	k, _ := New([]string{"known-secret-1"})
	in := "a known-secret-1 b AKIAIOSFODNN7EXAMPLE c"
	for mode, want := range map[Mode]string{
		Redact: "a [REDACTED] b [REDACTED:aws-access-key] c",
		Block:  "a [REDACTED] b AKIAIOSFODNN7EXAMPLE c",
		Log:    "a [REDACTED] b AKIAIOSFODNN7EXAMPLE c",
		Off:    "a [REDACTED] b AKIAIOSFODNN7EXAMPLE c",
	} {
		out, rep := Policy{Known: k, Mode: mode}.Scan(in)
		if out != want || rep.Known != 1 {
			t.Errorf("%s: got %q %+v", mode, out, rep)
		}
		if wantFound := mode != Off; (len(rep.Found) == 1) != wantFound {
			t.Errorf("%s: found %v", mode, rep.Found)
		}
	}
	if _, err := ParseMode("drop"); err == nil {
		t.Fatal("bad mode accepted")
	}
	if m, _ := ParseMode(""); m != Redact {
		t.Fatal("default is not redact")
	}
}
