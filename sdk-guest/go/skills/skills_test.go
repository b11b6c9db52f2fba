package skills

import (
	"embed"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
)

//go:embed testdata/skills
var testFS embed.FS

// TestDir: each folder with a SKILL.md is a skill, its files listed with
// paths relative to it, text as text and other bytes as base64.
func TestDir(t *testing.T) {
	reset()
	t.Cleanup(reset)
	Dir(testFS, "testdata/skills")
	out, err := listJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"skills":[{"path":"textkit-review","files":[` +
		`{"path":"SKILL.md","text":"---\nname: textkit-review\ndescription: Review a text with textkit\n---\n# Review\nSee references/checklist.md.\n"},` +
		`{"path":"references/bytes.bin","blob":"AAH/"},` +
		`{"path":"references/checklist.md","text":"- count the words\n"}]}]}`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
}

// TestRefused: a skill without SKILL.md or with a path that could leave
// it fails List, naming it.
func TestRefused(t *testing.T) {
	for what, c := range map[string]struct {
		path string
		fsys fstest.MapFS
		want string
	}{
		"no SKILL.md": {"a", fstest.MapFS{"README.md": {Data: []byte("x")}}, "has no SKILL.md"},
		"dot dot":     {"../a", fstest.MapFS{"SKILL.md": {Data: []byte("x")}}, `skill "../a"`},
		"absolute":    {"/a", fstest.MapFS{"SKILL.md": {Data: []byte("x")}}, "absolute"},
		"empty":       {"a//b", fstest.MapFS{"SKILL.md": {Data: []byte("x")}}, "empty"},
	} {
		reset()
		Skill(c.path, c.fsys, ".")
		if _, err := List(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", what, err, c.want)
		}
	}
	reset()
	Skill("a", fstest.MapFS{"SKILL.md": {Data: []byte("x")}, "sub/f.txt": {Data: []byte("y")}}, ".")
	l, err := List()
	if err != nil || len(l) != 1 || len(l[0].Files) != 2 || l[0].Files[1].Path != "sub/f.txt" {
		t.Fatalf("root '.': %+v %v", l, err)
	}
	reset()
}
