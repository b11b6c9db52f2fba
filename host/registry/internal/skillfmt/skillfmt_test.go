package skillfmt

import (
	"strings"
	"testing"
)

// TestCheckFilePath: no path inside a skill can leave it or be ambiguous.
func TestCheckFilePath(t *testing.T) {
	for _, p := range []string{"SKILL.md", "references/FORMS.md", "a/b/c.txt", "templates/é.md", "x..y", "...md"} {
		if err := CheckFilePath(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	for _, p := range []string{"", "..", "../x", "a/../../x", "a/..", "/etc/passwd", "//x", "a//b", "./a", "a/.", "a/",
		`a\..\b`, `..\x`, "%2e%2e/x", "a/%2F", "a\x00b", "a\nb", "\xff", strings.Repeat("a", MaxFilePath+1)} {
		if err := CheckFilePath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
}

func TestCheckSkillPath(t *testing.T) {
	for p, name := range map[string]string{"review": "review", "acme/billing/refunds": "refunds", "a.b/x-1": "x-1", "0": "0"} {
		got, err := CheckSkillPath(p)
		if err != nil || got != name {
			t.Errorf("%q: got %q, %v; want %q", p, got, err, name)
		}
	}
	for _, p := range []string{"", "..", "a/..", "../a", "a//b", "/a", "a/", "Review", "a--b", "-a", "a-", "a_b",
		"a b", "a/b%2F", strings.Repeat("a", 65), "a/./b", "a:b/x"} {
		if _, err := CheckSkillPath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
}

// TestFrontmatter: every field passes through as JSON, typed as YAML 1.2
// reads it; what the extension requires is enforced.
func TestFrontmatter(t *testing.T) {
	f, err := Frontmatter([]byte("\uFEFF---\r\nname: review\r\ndescription: Review a change\r\nlicense: MIT\r\nmetadata:\r\n  version: \"1.0\"\r\n  n: 3\r\n  ok: true\r\n  when: 2026-01-02\r\n  tags: [a, b]\r\n---\r\n# Body\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"description":"Review a change","license":"MIT","metadata":{"n":3,"ok":true,"tags":["a","b"],"version":"1.0","when":"2026-01-02"},"name":"review"}`
	if string(f.JSON) != want || f.Name != "review" || f.Description != "Review a change" {
		t.Fatalf("got %s (%q, %q), want %s", f.JSON, f.Name, f.Description, want)
	}
	for what, md := range map[string]string{
		"no frontmatter":    "# Title\n",
		"not closed":        "---\nname: a\ndescription: b\n",
		"bad closing line":  "---\nname: a\ndescription: b\n---x\n",
		"no name":           "---\ndescription: b\n---\n",
		"empty description": "---\nname: a\ndescription: \"\"\n---\n",
		"name not a string": "---\nname: [a]\ndescription: b\n---\n",
		"not a mapping":     "---\n- a\n---\n",
		"alias":             "---\nname: &x a\ndescription: *x\n---\n",
		"duplicate key":     "---\nname: a\nname: b\ndescription: c\n---\n",
		"bad yaml":          "---\nname: [\ndescription: b\n---\n",
		"long description":  "---\nname: a\ndescription: " + strings.Repeat("x", MaxDescription+1) + "\n---\n",
	} {
		if _, err := Frontmatter([]byte(md)); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}
