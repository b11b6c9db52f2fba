package secrets

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Kind is a credential format Detect finds.
type Kind string

// The formats Detect finds.
const (
	PrivateKey   Kind = "private-key"    // -----BEGIN … PRIVATE KEY----- (PKCS#1, PKCS#8, EC, OpenSSH, PGP, encrypted)
	AWSKey       Kind = "aws-access-key" // AKIA, ASIA, ABIA, ACCA + 16 base32 characters
	GitHubToken  Kind = "github-token"   // ghp_ gho_ ghu_ ghs_ ghr_ + 36; github_pat_ + 82
	GitLabToken  Kind = "gitlab-token"   // glpat- and GitLab's other prefixed tokens
	SlackToken   Kind = "slack-token"    // xoxb- xoxp- xoxa- xoxr- xoxs- xoxe- xapp-
	SlackWebhook Kind = "slack-webhook"  // hooks.slack.com/services/T…/B…/…
	JWT          Kind = "jwt"            // header.payload.signature, header a JSON object with "alg"
)

// Kinds lists every format, in a fixed order.
var Kinds = []Kind{PrivateKey, AWSKey, GitHubToken, GitLabToken, SlackToken, SlackWebhook, JWT}

// Match is one credential found.
type Match struct {
	Kind       Kind
	Start, End int // s[Start:End]
}

// detector finds one format from a literal anchor: at each occurrence of
// anchor, match says where the credential starts and ends, if it is one.
type detector struct {
	anchor string
	kind   Kind
	match  func(s string, i int) (start, end int, ok bool)
}

var detectors = []detector{
	{"-----BEGIN ", PrivateKey, matchPEM},
	{"AKIA", AWSKey, matchAWS},
	{"ASIA", AWSKey, matchAWS},
	{"ABIA", AWSKey, matchAWS},
	{"ACCA", AWSKey, matchAWS},
	{"gh", GitHubToken, matchGitHub},
	{"github_pat_", GitHubToken, matchGitHubPAT},
	{"gl", GitLabToken, matchGitLab},
	{"GR1348941", GitLabToken, matchGitLabRunner},
	{"xox", SlackToken, matchSlack},
	{"xapp-", SlackToken, matchSlackApp},
	{"hooks.slack.com/services/", SlackWebhook, matchSlackHook},
	{"eyJ", JWT, matchJWT},
}

// Detect returns the credentials in s, in no particular order
// (overlapping matches are merged when redacted).
func Detect(s string) []Match {
	var out []Match
	for _, d := range detectors {
		for i := 0; ; {
			j := strings.Index(s[i:], d.anchor)
			if j < 0 {
				break
			}
			j += i
			if start, end, ok := d.match(s, j); ok {
				out = append(out, Match{Kind: d.kind, Start: start, End: end})
				i = end
				continue
			}
			i = j + 1
		}
	}
	return out
}

// RedactFormats returns s with each credential Detect finds replaced by
// "[REDACTED:KIND]", and the matches.
func RedactFormats(s string) (string, []Match) {
	ms := Detect(s)
	if len(ms) == 0 {
		return s, nil
	}
	spans := make([]span, len(ms))
	for i, m := range ms {
		spans[i] = span{start: m.Start, end: m.End, kind: m.Kind}
	}
	out, _ := replace(s, spans, func(sp span) string { return "[REDACTED:" + string(sp.kind) + "]" })
	return out, ms
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isUpperAlnum(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func isB64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// run returns the end of the run of characters ok accepts from i.
func run(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// boundedBefore reports that s[i] does not continue a word.
func boundedBefore(s string, i int, word func(byte) bool) bool { return i == 0 || !word(s[i-1]) }

func matchPEM(s string, i int) (int, int, bool) {
	// -----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----
	j := run(s, i+len("-----BEGIN "), func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' })
	label := s[i+len("-----BEGIN ") : j]
	if !strings.HasSuffix(strings.TrimSuffix(label, " BLOCK"), "PRIVATE KEY") || !strings.HasPrefix(s[j:], "-----") {
		return 0, 0, false
	}
	j += 5
	// To the footer, if it comes before 64 KiB; else to the end of the
	// base64 body (headers, white space, JSON \n escapes included).
	limit := min(len(s), j+64<<10)
	if k := strings.Index(s[j:limit], "-----END "); k >= 0 {
		end := j + k + len("-----END ")
		if f := strings.Index(s[end:min(len(s), end+64)], "-----"); f >= 0 {
			return i, end + f + 5, true
		}
		return i, end, true
	}
	k := j
	for k < len(s) {
		c := s[k]
		switch {
		case isAlnum(c) || c == '+' || c == '/' || c == '=' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ':' || c == '-' || c == ',':
			k++
		case c == '\\' && k+1 < len(s) && (s[k+1] == 'n' || s[k+1] == 'r'):
			k += 2
		default:
			return i, k, true
		}
	}
	return i, k, true
}

func matchAWS(s string, i int) (int, int, bool) {
	if !boundedBefore(s, i, isAlnum) || i+20 > len(s) {
		return 0, 0, false
	}
	for k := i + 4; k < i+20; k++ {
		c := s[k]
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return 0, 0, false
		}
	}
	if i+20 < len(s) && isAlnum(s[i+20]) {
		return 0, 0, false
	}
	return i, i + 20, true
}

func matchGitHub(s string, i int) (int, int, bool) {
	// gh[pousr]_ + 36 alphanumerics.
	if i+4 > len(s) || !strings.ContainsRune("pousr", rune(s[i+2])) || s[i+3] != '_' || !boundedBefore(s, i, isAlnum) {
		return 0, 0, false
	}
	end := run(s, i+4, isAlnum)
	if end-(i+4) != 36 {
		return 0, 0, false
	}
	return i, end, true
}

func matchGitHubPAT(s string, i int) (int, int, bool) {
	end := run(s, i+len("github_pat_"), func(c byte) bool { return isAlnum(c) || c == '_' })
	if end-(i+len("github_pat_")) < 70 || !boundedBefore(s, i, isAlnum) {
		return 0, 0, false
	}
	return i, end, true
}

// gitlabPrefixes are GitLab's token prefixes (personal, OAuth application
// secret, deploy, runner, pipeline trigger, feed, SCIM/OAuth, incoming
// mail, CI build, agent, cluster agent, feature flags client).
var gitlabPrefixes = []string{"glpat-", "gloas-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glimt-", "glcbt-", "glagent-", "glffct-"}

func matchGitLab(s string, i int) (int, int, bool) {
	if !boundedBefore(s, i, isAlnum) {
		return 0, 0, false
	}
	for _, p := range gitlabPrefixes {
		if strings.HasPrefix(s[i:], p) {
			end := run(s, i+len(p), func(c byte) bool { return isB64URL(c) || c == '.' })
			if end-(i+len(p)) >= 20 {
				return i, end, true
			}
			return 0, 0, false
		}
	}
	return 0, 0, false
}

func matchGitLabRunner(s string, i int) (int, int, bool) {
	end := run(s, i+len("GR1348941"), isB64URL)
	if end-(i+len("GR1348941")) < 20 || !boundedBefore(s, i, isAlnum) {
		return 0, 0, false
	}
	return i, end, true
}

func matchSlack(s string, i int) (int, int, bool) {
	// xox[baprse]-[A-Za-z0-9-]{10,}
	if i+5 > len(s) || !strings.ContainsRune("baprse", rune(s[i+3])) || s[i+4] != '-' || !boundedBefore(s, i, isAlnum) {
		return 0, 0, false
	}
	end := run(s, i+5, func(c byte) bool { return isAlnum(c) || c == '-' })
	if end-(i+5) < 10 {
		return 0, 0, false
	}
	return i, end, true
}

func matchSlackApp(s string, i int) (int, int, bool) {
	end := run(s, i+5, func(c byte) bool { return isAlnum(c) || c == '-' })
	if end-(i+5) < 10 || !boundedBefore(s, i, isAlnum) {
		return 0, 0, false
	}
	return i, end, true
}

func matchSlackHook(s string, i int) (int, int, bool) {
	// …/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+
	j := i + len("hooks.slack.com/services/")
	for _, first := range []byte{'T', 'B'} {
		if j >= len(s) || s[j] != first {
			return 0, 0, false
		}
		k := run(s, j+1, isUpperAlnum)
		if k == j+1 || k >= len(s) || s[k] != '/' {
			return 0, 0, false
		}
		j = k + 1
	}
	end := run(s, j, isAlnum)
	if end-j < 8 {
		return 0, 0, false
	}
	return i, end, true
}

func matchJWT(s string, i int) (int, int, bool) {
	if !boundedBefore(s, i, isB64URL) {
		return 0, 0, false
	}
	h := run(s, i, isB64URL)
	if h-i < 10 || h >= len(s) || s[h] != '.' {
		return 0, 0, false
	}
	p := run(s, h+1, isB64URL)
	if p-(h+1) < 2 {
		return 0, 0, false
	}
	end := p
	if p < len(s) && s[p] == '.' {
		end = run(s, p+1, isB64URL)
	} else {
		return 0, 0, false
	}
	hdr, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s[i:h], "="))
	if err != nil {
		return 0, 0, false
	}
	var head map[string]json.RawMessage
	if json.Unmarshal(hdr, &head) != nil {
		return 0, 0, false
	}
	if _, ok := head["alg"]; !ok {
		return 0, 0, false
	}
	return i, end, true
}
