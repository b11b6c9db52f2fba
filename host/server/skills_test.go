package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/bearer"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"
)

// The conformance fixture declares one skill (testdata/conformance/skills):
// these tests read it through the extension's methods over 2026-07-28
// HTTP, raw (go-sdk's client has no skills).

func skillsServer(t *testing.T, toks *bearer.Tokens, scopes bearer.Policy) string {
	t.Helper()
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.RequireScopes(scopes)
	ho := httpserve.Options{Stateless: true}
	if toks != nil {
		ho.Access = httpserve.AccessOptions{Verifier: toks.Verify}
	}
	return servertest.ServeHTTP(t, srv, ho) + "/mcp"
}

func fileDigest(t *testing.T, path string) (string, int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), len(b)
}

// TestSkillsMethods: skills/list and skills/get give the skill's entry,
// its frontmatter verbatim and every file's digest and size as the files
// on disk have them; resources/directory/read lists a folder's children;
// unknown skills and non-directories are -32602.
func TestSkillsMethods(t *testing.T) {
	c := rpc{t: t, url: skillsServer(t, nil, bearer.Policy{}), caps: `{}`}
	list := c.call("skills/list", "", nil)
	if list.Error != nil {
		t.Fatalf("skills/list: %+v", list.Error)
	}
	raw, _ := json.Marshal(list.Result["skills"])
	var skills []struct {
		URI         string         `json:"uri"`
		Frontmatter map[string]any `json:"frontmatter"`
		Resources   []struct {
			URI, Digest string
			Size        int
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &skills); err != nil || len(skills) != 1 {
		t.Fatalf("skills: %s (%v)", raw, err)
	}
	sk := skills[0]
	if sk.URI != "skill://pdf-processing/SKILL.md" || sk.Frontmatter["name"] != "pdf-processing" || sk.Frontmatter["license"] != "Apache-2.0" ||
		sk.Frontmatter["metadata"].(map[string]any)["version"] != "1.0" {
		t.Fatalf("entry %+v", sk)
	}
	want := map[string]string{
		"skill://pdf-processing/SKILL.md":            "../../testdata/conformance/skills/pdf-processing/SKILL.md",
		"skill://pdf-processing/references/FORMS.md": "../../testdata/conformance/skills/pdf-processing/references/FORMS.md",
	}
	if len(sk.Resources) != len(want) {
		t.Fatalf("resources %+v", sk.Resources)
	}
	for _, r := range sk.Resources {
		d, n := fileDigest(t, want[r.URI])
		if r.Digest != d || r.Size != n {
			t.Errorf("%s: %s %d, want %s %d", r.URI, r.Digest, r.Size, d, n)
		}
	}
	if list.Result["resultType"] != "complete" || list.Result["ttlMs"] == nil || list.Result["cacheScope"] != "public" {
		t.Errorf("list result fields: %v", list.Result)
	}

	get := c.call("skills/get", "", map[string]any{"uri": sk.URI})
	if get.Error != nil {
		t.Fatalf("skills/get: %+v", get.Error)
	}
	graw, _ := json.Marshal(get.Result["skill"])
	lraw, _ := json.Marshal(list.Result["skills"].([]any)[0])
	if string(graw) != string(lraw) || get.Result["nextCursor"] != nil {
		t.Errorf("skills/get %s, want the listing's entry %s", graw, lraw)
	}
	for _, uri := range []string{"skill://pdf-processing/references/FORMS.md", "skill://nope/SKILL.md", "test://static-text", ""} {
		if r := c.call("skills/get", "", map[string]any{"uri": uri}); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("skills/get %q: %+v %+v, want -32602", uri, r.Result, r.Error)
		}
	}

	dir := c.call("resources/directory/read", "", map[string]any{"uri": "skill://pdf-processing"})
	if dir.Error != nil {
		t.Fatalf("directory read: %+v", dir.Error)
	}
	kids, _ := json.Marshal(dir.Result["resources"])
	wantKids := `[{"mimeType":"text/markdown","name":"SKILL.md","size":` + itoa(fileSize(t, want["skill://pdf-processing/SKILL.md"])) +
		`,"uri":"skill://pdf-processing/SKILL.md"},{"mimeType":"inode/directory","name":"references","uri":"skill://pdf-processing/references"}]`
	if string(kids) != wantKids {
		t.Errorf("directory: %s\nwant %s", kids, wantKids)
	}
	for _, uri := range []string{"skill://pdf-processing/SKILL.md", "skill://pdf-processing/nope", "skill://other", "test://static-text"} {
		if r := c.call("resources/directory/read", "", map[string]any{"uri": uri}); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("directory read %q: %+v, want -32602", uri, r.Error)
		}
	}
	if r := c.call("skills/list", "", map[string]any{"cursor": "x"}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("bad cursor: %+v", r.Error)
	}
	// The files are ordinary resources.
	read := c.call("resources/read", "skill://pdf-processing/SKILL.md", map[string]any{"uri": "skill://pdf-processing/SKILL.md"})
	if read.Error != nil {
		t.Fatalf("resources/read: %+v", read.Error)
	}
	b, _ := os.ReadFile(want["skill://pdf-processing/SKILL.md"])
	if got := read.Result["contents"].([]any)[0].(map[string]any); got["text"] != string(b) || got["mimeType"] != "text/markdown" {
		t.Errorf("read %v", got)
	}
}

func fileSize(t *testing.T, p string) int { _, n := fileDigest(t, p); return n }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// wantSkillHidden checks that c (who) sees no skill and cannot get
// pdf-processing, list its folder or read its SKILL.md.
func wantSkillHidden(t *testing.T, c rpc, who string) {
	t.Helper()
	const uri = "skill://pdf-processing/SKILL.md"
	if r := c.call("skills/list", "", nil); r.Error != nil || len(r.Result["skills"].([]any)) != 0 {
		t.Fatalf("%s, skills/list: %+v %+v", who, r.Result, r.Error)
	}
	if r := c.call("skills/get", "", map[string]any{"uri": uri}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("%s, skills/get: %+v", who, r.Error)
	}
	if r := c.call("resources/directory/read", "", map[string]any{"uri": "skill://pdf-processing"}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("%s, directory read: %+v", who, r.Error)
	}
	if r := c.call("resources/read", uri, map[string]any{"uri": uri}); r.Error == nil {
		t.Errorf("%s, resources/read answered %+v", who, r.Result)
	}
}

// TestSkillsScopes: a token without the scope of the skill's plugin sees
// no skill, cannot get it, list its folders or read its files.
func TestSkillsScopes(t *testing.T) {
	toks := servertest.StaticTokens(t, "full 0123456789abcdef0123 conf\nnone fedcba9876543210fedc\n")
	url := skillsServer(t, toks, bearer.Policy{Plugins: map[string]string{"conformance": "conf"}})
	full := rpc{t: t, url: url, token: "0123456789abcdef0123", caps: `{}`}
	none := rpc{t: t, url: url, token: "fedcba9876543210fedc", caps: `{}`}
	const uri = "skill://pdf-processing/SKILL.md"
	if r := full.call("skills/list", "", nil); r.Error != nil || len(r.Result["skills"].([]any)) != 1 || r.Result["cacheScope"] != "private" {
		t.Fatalf("with the scope: %+v %+v", r.Result, r.Error)
	}
	wantSkillHidden(t, none, "without the scope")
	if r := full.call("resources/read", uri, map[string]any{"uri": uri}); r.Error != nil {
		t.Errorf("with the scope, resources/read: %+v", r.Error)
	}
}

// TestSkillsPolicy: a Cedar policy that forbids reading a skill's SKILL.md
// hides the skill from skills/list, skills/get and directory reads, as
// resources/list hides the resource, and refuses the read.
func TestSkillsPolicy(t *testing.T) {
	srv, _ := newServer(t, false, loadSpec{name: "conformance"})
	srv.SetPolicy(mustPolicy(t, `permit(principal, action, resource);
@id("no-skill") forbid(principal, action == Action::"read_resource", resource == Resource::"skill://pdf-processing/SKILL.md");`))
	c := rpc{t: t, url: servertest.ServeHTTP(t, srv, httpserve.Options{Stateless: true}) + "/mcp", caps: `{}`}
	wantSkillHidden(t, c, "under the policy")
	// The supporting file is another resource: the policy names only SKILL.md.
	if r := c.call("resources/read", "skill://pdf-processing/references/FORMS.md", map[string]any{"uri": "skill://pdf-processing/references/FORMS.md"}); r.Error != nil {
		t.Errorf("FORMS.md: %+v", r.Error)
	}
}
