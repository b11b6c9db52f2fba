package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/fingerprint"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

const reviewMD = "---\nname: review\ndescription: Review a change\n---\n# Review\n"

// decl builds a skill declaration from path -> text.
func decl(path string, files map[string]string) skillDecl {
	d := skillDecl{Path: path}
	for p, text := range files {
		text := text
		d.Files = append(d.Files, struct {
			Path     string  `json:"path"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
			MIMEType string  `json:"mimeType"`
		}{Path: p, Text: &text})
	}
	return d
}

// registryWith serves the given skills' files as a plugin's resources would be.
func registryWith(t *testing.T, decls ...skillDecl) *Registry {
	t.Helper()
	res, err := buildSkills(decls, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := New()
	r.insert(&Entry{Resources: res})
	return r
}

// TestSkillEntry: a skill's files become resources with their digest and
// size, SKILL.md named and described from its frontmatter; reads are
// answered from memory.
func TestSkillEntry(t *testing.T) {
	r := registryWith(t, decl("acme/review", map[string]string{
		"SKILL.md": strings.Replace(reviewMD, "review\n", "review\n", 1), "references/checklist.md": "- tests\n", "references/deep/x.txt": "x"}))
	sk, ok := r.Skill("skill://acme/review/SKILL.md")
	if !ok || len(r.Skills()) != 1 {
		t.Fatalf("skill not served: %v %d", ok, len(r.Skills()))
	}
	var fm map[string]any
	if err := json.Unmarshal(sk.Frontmatter, &fm); err != nil || fm["name"] != "review" || fm["description"] != "Review a change" {
		t.Fatalf("frontmatter %s", sk.Frontmatter)
	}
	if len(sk.Files) != 3 || sk.Files[0].Path != "SKILL.md" {
		t.Fatalf("files %v", sk.Files)
	}
	sum := sha256.Sum256([]byte("- tests\n"))
	f := sk.Files[1]
	if f.Path != "references/checklist.md" || f.Digest != "sha256:"+hex.EncodeToString(sum[:]) || len(f.Data) != 8 || f.MIMEType != "text/markdown" {
		t.Fatalf("file %+v", f)
	}
	res := r.Resources()
	if len(res) != 3 || res[0].Def.URI != "skill://acme/review/SKILL.md" || res[0].Def.Name != "review" ||
		res[0].Def.Description != "Review a change" || res[0].Def.MIMEType != "text/markdown" {
		t.Fatalf("SKILL.md resource %+v", res[0].Def)
	}
	got, err := r.ReadResource(context.Background(), "skill://acme/review/references/checklist.md", Invocation{})
	if err != nil || len(got.Contents) != 1 || got.Contents[0].Text != "- tests\n" || got.Contents[0].URI != "skill://acme/review/references/checklist.md" {
		t.Fatalf("read: %v %+v", err, got)
	}
	if _, ok := r.Skill("skill://acme/review/references/checklist.md"); ok {
		t.Fatal("a supporting file is taken for a skill")
	}
}

// TestSkillDirectory: a directory read lists direct children, folders as
// inode/directory; files and unknown paths are no directory.
func TestSkillDirectory(t *testing.T) {
	r := registryWith(t, decl("review", map[string]string{
		"SKILL.md": reviewMD, "references/checklist.md": "a", "references/deep/x.txt": "x", "a.txt": "y"}))
	uris := func(uri string) (string, bool) {
		kids, _, ok := r.SkillDirectory(uri)
		var out []string
		for _, k := range kids {
			out = append(out, k.URI+"|"+k.MIMEType)
		}
		return strings.Join(out, " "), ok
	}
	for uri, want := range map[string]string{
		"skill://review":                 "skill://review/SKILL.md|text/markdown skill://review/a.txt|text/plain; charset=utf-8 skill://review/references|inode/directory",
		"skill://review/references":      "skill://review/references/checklist.md|text/markdown skill://review/references/deep|inode/directory",
		"skill://review/references/deep": "skill://review/references/deep/x.txt|text/plain; charset=utf-8",
	} {
		if got, ok := uris(uri); !ok || got != want {
			t.Errorf("%s: got %q (%v), want %q", uri, got, ok, want)
		}
	}
	for _, uri := range []string{"skill://review/SKILL.md", "skill://review/a.txt", "skill://review/nope", "skill://review/refer",
		"skill://other", "skill://review/references/deep/x.txt", "skill://review/", "skill://revie"} {
		if _, ok := uris(uri); ok {
			t.Errorf("%s taken for a directory", uri)
		}
	}
}

// TestSkillRefused: every rule a declared skill breaks is a load error
// naming it.
func TestSkillRefused(t *testing.T) {
	many := map[string]string{"SKILL.md": reviewMD}
	for i := 0; i < MaxSkillFiles; i++ {
		many["f/"+strings.Repeat("x", 1)+string(rune('a'+i%26))+strings.Repeat("y", i/26)] = "z"
	}
	big := strings.Repeat("x", MaxSkillBytes/2+1)
	blob := decl("review", map[string]string{"SKILL.md": reviewMD})
	bad := "not base64!"
	blob.Files = append(blob.Files, struct {
		Path     string  `json:"path"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
		MIMEType string  `json:"mimeType"`
	}{Path: "b.bin", Blob: &bad})
	for what, c := range map[string]struct {
		decls []skillDecl
		want  string
	}{
		"escape":          {[]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD, "../other/SKILL.md": "x"})}, `"../other/SKILL.md"`},
		"absolute":        {[]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD, "/etc/passwd": "x"})}, "absolute"},
		"path escape":     {[]skillDecl{decl("../review", map[string]string{"SKILL.md": reviewMD})}, `segment ".."`},
		"no SKILL.md":     {[]skillDecl{decl("review", map[string]string{"README.md": reviewMD})}, "has no SKILL.md"},
		"name mismatch":   {[]skillDecl{decl("other", map[string]string{"SKILL.md": reviewMD})}, `names the skill "review"`},
		"bad frontmatter": {[]skillDecl{decl("review", map[string]string{"SKILL.md": "# no frontmatter"})}, "frontmatter"},
		"file and folder": {[]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD, "a": "x", "a/b": "y"})}, "both a file and the folder"},
		"too many files":  {[]skillDecl{decl("review", many)}, "more than 512"},
		"too large":       {[]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD, "a": big, "b": big})}, "more than 16777216 bytes"},
		"overlap":         {[]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD}), decl("x/review", map[string]string{"SKILL.md": reviewMD})}, ""},
		"nested":          {[]skillDecl{decl("a", map[string]string{"SKILL.md": strings.ReplaceAll(reviewMD, "name: review", "name: a")}), decl("a/review", map[string]string{"SKILL.md": reviewMD})}, "overlap"},
		"same path":       {[]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD}), decl("review", map[string]string{"SKILL.md": reviewMD})}, "overlap"},
		"bad blob":        {[]skillDecl{blob}, "not base64"},
		"too many skills": {make([]skillDecl, MaxSkillsPerPlugin+1), "more than 64"},
	} {
		_, err := buildSkills(c.decls, nil)
		if what == "overlap" { // different prefixes, same name: allowed
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", what, err, c.want)
		}
	}
	// A blob is served as a blob, with its own digest.
	data := []byte{0, 1, 2, 255}
	enc := base64.StdEncoding.EncodeToString(data)
	ok := decl("review", map[string]string{"SKILL.md": reviewMD})
	ok.Files = append(ok.Files, struct {
		Path     string  `json:"path"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
		MIMEType string  `json:"mimeType"`
	}{Path: "img.png", Blob: &enc})
	r := registryWith(t, ok)
	got, err := r.ReadResource(context.Background(), "skill://review/img.png", Invocation{})
	if err != nil || string(got.Contents[0].Blob) != string(data) || got.Contents[0].MIMEType != "image/png" {
		t.Fatalf("blob read: %v %+v", err, got)
	}
}

// TestSkillURICollision: a skill file's URI also declared by list_resources
// is a load error.
func TestSkillURICollision(t *testing.T) {
	skills, err := buildSkills([]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	declared := []*Resource{{Def: skills[0].Def}}
	if _, err := withSkills(declared, skills); err == nil || !strings.Contains(err.Error(), "also declared by list_resources") {
		t.Fatalf("got %v", err)
	}
}

// TestSkillFileFingerprintFollowsContent: two versions of a skill whose
// SKILL.md differs in its body only, same size, give the file's resource
// another fingerprint (host/trust holds the update). Without the digest in
// the declaration's _meta they fingerprint the same.
func TestSkillFileFingerprintFollowsContent(t *testing.T) {
	print := func(body string) fingerprint.Print {
		t.Helper()
		res, err := buildSkills([]skillDecl{decl("review", map[string]string{"SKILL.md": reviewMD + body})}, nil)
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %d", err, len(res))
		}
		if res[0].Def.Meta[SkillDigestMeta] != res[0].File.Digest {
			t.Fatalf("_meta %v, digest %s", res[0].Def.Meta, res[0].File.Digest)
		}
		raw, err := json.Marshal(res[0].Def)
		if err != nil {
			t.Fatal(err)
		}
		p, err := fingerprint.OfJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if a, b := print("Call diff first.\n"), print("Call rm -rf now.\n"); a.Sum == b.Sum {
		t.Fatalf("a rewritten skill body kept its fingerprint %v", a)
	}
}

// TestSkillOverlapAcrossPlugins: a skill nested in, or around, a skill of
// another plugin is a collision, named, whichever arrives second; a skill
// beside it (a shared prefix that is not a folder) is not.
func TestSkillOverlapAcrossPlugins(t *testing.T) {
	rt := newRuntime(t)
	a, b := loadFixture(t, rt, "echo", "a"), loadFixture(t, rt, "echo", "b")
	skillsOf := func(p *plugin.Plugin, path string) *Entry {
		md := strings.Replace(reviewMD, "name: review", "name: "+path[strings.LastIndex(path, "/")+1:], 1)
		res, err := buildSkills([]skillDecl{decl(path, map[string]string{"SKILL.md": md})}, p)
		if err != nil {
			t.Fatal(err)
		}
		return &Entry{Plugin: p, Resources: res}
	}
	for _, c := range []struct{ first, second string }{{"review", "review/deep"}, {"review/deep", "review"}} {
		r := New()
		r.insert(skillsOf(a, c.first))
		err := r.collisions(skillsOf(b, c.second), AddOptions{})
		if err == nil || !strings.Contains(err.Error(), "overlaps skill") || !strings.Contains(err.Error(), `plugin "a"`) {
			t.Errorf("%s then %s: got %v", c.first, c.second, err)
		}
	}
	r := New()
	r.insert(skillsOf(a, "review"))
	if err := r.collisions(skillsOf(b, "reviewer"), AddOptions{}); err != nil {
		t.Errorf("review and reviewer: %v", err)
	}
}
