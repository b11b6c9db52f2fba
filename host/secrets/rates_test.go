package secrets_test

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/plugins/builtin"
)

// TestDetectorRates measures the two rates docs/security.md publishes:
//
//   - false positives: what Detect flags in the outputs of the built-in
//     tools (every tool of mdtools, textkit and units, and hashkit, each
//     called with arguments built from its schema over varied inputs), in
//     hashkit-like hex, base64 and UUID values, and in this repository's
//     docs and Go code read as text;
//   - detection: planted credentials of each kind, alone, in prose, in
//     JSON and in JSON-escaped PEM.
//
// Run it with: go test -count=1 -run TestDetectorRates -v ./host/secrets/
// It fails if a planted credential is missed, or if the outputs or the
// hash values give any false positive.
func TestDetectorRates(t *testing.T) {
	fixture.Slow(t, "loads four plugins and reads the repository")
	outs := toolOutputs(t)
	fpOut := flagged(outs)
	hashes := hashValues(20000)
	fpHash := flagged(hashes)
	docs, code := repoText(t)
	fpDocs, fpCode := flagged(docs), flagged(code)
	t.Logf("false positives: tool outputs %d of %d (%.3f%%)", len(fpOut), len(outs), pct(len(fpOut), len(outs)))
	t.Logf("false positives: hex/base64/UUID values %d of %d (%.3f%%)", len(fpHash), len(hashes), pct(len(fpHash), len(hashes)))
	t.Logf("flagged in the repository: docs %d of %d files, Go %d of %d files", len(fpDocs), len(docs), len(fpCode), len(code))
	for _, f := range append(fpDocs, fpCode...) {
		t.Logf("  %s", f)
	}
	if len(fpOut)+len(fpHash) > 0 {
		t.Errorf("false positives: %v %v", fpOut, fpHash)
	}

	planted := plantedCredentials()
	found := 0
	for _, p := range planted {
		ms := secrets.Detect(p.text)
		if len(ms) > 0 && ms[0].Kind == p.kind {
			found++
		} else {
			t.Errorf("missed %s in %q", p.kind, p.text)
		}
	}
	t.Logf("detection: %d of %d planted credentials (%.1f%%), %d kinds", found, len(planted), pct(found, len(planted)), len(secrets.Kinds))
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// flagged returns "name: kind …" for each text Detect flags.
func flagged(texts map[string]string) []string {
	var out []string
	for name, s := range texts {
		for _, m := range secrets.Detect(s) {
			out = append(out, fmt.Sprintf("%s: %s %.24q", name, m.Kind, s[m.Start:m.End]))
		}
	}
	sort.Strings(out)
	return out
}

var samples = []string{
	"", "hello world", "The Quick Brown Fox", "# Title\n\n- a\n- b\n\n```go\nfmt.Println(1)\n```\n",
	"snake_case_name", "camelCaseName", "  padded  ", "日本語のテキスト", "émigré café", "a,b,c\n1,2,3",
	`{"k":[1,2,{"x":"y"}]}`, "https://example.com/path?q=1", "2026-11-29T00:00:00Z", "42", "-3.5e7",
	strings.Repeat("lorem ipsum dolor sit amet ", 40), "GET /api/v1/users HTTP/1.1", "ghost_glyph_xoxo_eyJ",
}

// toolOutputs calls every built-in tool with arguments built from its
// input schema over the samples, and returns each result's text.
func toolOutputs(t *testing.T) map[string]string {
	ctx := context.Background()
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	type src struct {
		name string
		wasm []byte
	}
	var srcs []src
	for _, b := range builtin.Plugins() {
		srcs = append(srcs, src{b.Name, b.Wasm})
	}
	hk, err := os.ReadFile(fixture.Plugin(t, "hashkit"))
	if err != nil {
		t.Fatal(err)
	}
	srcs = append(srcs, src{"hashkit", hk})
	reg := registry.New()
	out := map[string]string{}
	for _, s := range srcs {
		p, err := rt.Load(ctx, plugin.Config{Name: s.name, Source: s.name + ".wasm", Wasm: s.wasm})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close(ctx)
		if _, err := reg.Add(ctx, p, registry.AddOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range reg.Tools() {
		var schema struct {
			Properties map[string]struct {
				Type any   `json:"type"`
				Enum []any `json:"enum"`
			} `json:"properties"`
		}
		raw, _ := json.Marshal(tool.Def.InputSchema)
		json.Unmarshal(raw, &schema)
		for i, sample := range samples {
			args := map[string]any{}
			for name, prop := range schema.Properties {
				typ := fmt.Sprint(prop.Type)
				switch {
				case len(prop.Enum) > 0:
					args[name] = prop.Enum[i%len(prop.Enum)]
				case strings.Contains(typ, "string"):
					args[name] = sample
				case strings.Contains(typ, "integer"), strings.Contains(typ, "number"):
					args[name] = i * 7
				case strings.Contains(typ, "boolean"):
					args[name] = i%2 == 0
				case strings.Contains(typ, "array"):
					args[name] = []any{sample, sample + "2"}
				}
			}
			a, _ := json.Marshal(args)
			res := tool.Call(ctx, registry.CallRequest{Arguments: a})
			b, _ := json.Marshal(res)
			out[fmt.Sprintf("%s#%d", tool.Def.Name, i)] = string(b)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d outputs", len(out))
	}
	return out
}

// hashValues is n values of each shape hashkit returns: hex digests
// (SHA-1, SHA-256, SHA-512), base64 (standard, URL, raw) of random bytes,
// and UUIDs.
func hashValues(n int) map[string]string {
	out := map[string]string{}
	for i := range n {
		b := make([]byte, 8+i%120)
		rand.Read(b)
		s1, s256, s512 := sha1.Sum(b), sha256.Sum256(b), sha512.Sum512(b)
		u := make([]byte, 16)
		rand.Read(u)
		u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
		out[fmt.Sprint("sha1#", i)] = hex.EncodeToString(s1[:])
		out[fmt.Sprint("sha256#", i)] = hex.EncodeToString(s256[:])
		out[fmt.Sprint("SHA512#", i)] = strings.ToUpper(hex.EncodeToString(s512[:]))
		out[fmt.Sprint("b64#", i)] = base64.StdEncoding.EncodeToString(b)
		out[fmt.Sprint("b64url#", i)] = base64.RawURLEncoding.EncodeToString(b)
		out[fmt.Sprint("uuid#", i)] = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
	}
	return out
}

// repoText reads this repository's Markdown and Go files (this package's
// own tests, which plant credentials, left out).
func repoText(t *testing.T) (docs, code map[string]string) {
	docs, code = map[string]string{}, map[string]string{}
	root := fixture.Root()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "target":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(rel, filepath.Join("host", "secrets")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		switch filepath.Ext(p) {
		case ".md":
			docs[rel] = string(b)
		case ".go":
			code[rel] = string(b)
		}
		return nil
	})
	if len(docs) < 10 || len(code) < 100 {
		t.Fatalf("read %d docs and %d Go files from %s", len(docs), len(code), root)
	}
	return docs, code
}

type plant struct {
	kind secrets.Kind
	text string
}

// plantedCredentials makes credentials of each kind in the shapes their
// issuers use, each put alone, in a sentence, in JSON, and in a header.
func plantedCredentials() []plant {
	r := func(alpha string, n int) string {
		b := make([]byte, n)
		rand.Read(b)
		for i := range b {
			b[i] = alpha[int(b[i])%len(alpha)]
		}
		return string(b)
	}
	const an = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	const up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	jwt := func() string {
		enc := base64.RawURLEncoding
		h := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT","kid":"` + r(an, 8) + `"}`))
		p := enc.EncodeToString([]byte(`{"sub":"` + r(an, 12) + `","exp":1900000000}`))
		return h + "." + p + "." + r(an+"-_", 86)
	}
	pem := func(label string) string {
		var b strings.Builder
		b.WriteString("-----BEGIN " + label + "-----\n")
		for range 10 {
			b.WriteString(r(an+"+/", 64) + "\n")
		}
		b.WriteString("-----END " + label + "-----\n")
		return b.String()
	}
	var bare []plant
	for range 20 {
		bare = append(bare,
			plant{secrets.PrivateKey, pem("RSA PRIVATE KEY")},
			plant{secrets.PrivateKey, pem("PRIVATE KEY")},
			plant{secrets.PrivateKey, pem("EC PRIVATE KEY")},
			plant{secrets.PrivateKey, pem("OPENSSH PRIVATE KEY")},
			plant{secrets.AWSKey, "AKIA" + r(b32, 16)},
			plant{secrets.AWSKey, "ASIA" + r(b32, 16)},
			plant{secrets.GitHubToken, "ghp_" + r(an, 36)},
			plant{secrets.GitHubToken, "ghs_" + r(an, 36)},
			plant{secrets.GitHubToken, "github_pat_" + r(an, 22) + "_" + r(an, 59)},
			plant{secrets.GitLabToken, "glpat-" + r(an+"-_", 20)},
			plant{secrets.GitLabToken, "glrt-" + r(an+"-_", 20)},
			plant{secrets.SlackToken, "xoxb-" + r("0123456789", 11) + "-" + r("0123456789", 12) + "-" + r(an, 24)},
			plant{secrets.SlackToken, "xoxp-" + r("0123456789", 11) + "-" + r("0123456789", 11) + "-" + r("0123456789", 12) + "-" + r("abcdef0123456789", 32)},
			plant{secrets.SlackWebhook, "https://hooks.slack.com/services/T" + r(up, 8) + "/B" + r(up, 10) + "/" + r(an, 24)},
			plant{secrets.JWT, jwt()},
		)
	}
	var out []plant
	for _, p := range bare {
		js, _ := json.Marshal(map[string]string{"value": p.text})
		out = append(out, p,
			plant{p.kind, "Here it is: " + p.text + " (keep it safe)."},
			plant{p.kind, string(js)},
			plant{p.kind, "Authorization: Bearer " + p.text + "\r\n"})
	}
	return out
}
