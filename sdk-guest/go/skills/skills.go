// Package skills lets an mcpwasm plugin ship Agent Skills (ABI.md §5a): a
// folder holding SKILL.md and the files beside it, embedded at build time
// with go:embed, served by the host as skill://<path>/<file> resources
// under MCP's Skills extension. Importing the package adds the
// list_skills export.
//
//	//go:embed skills
//	var skillFS embed.FS
//
//	func init() {
//		skills.Dir(skillFS, "skills") // skills/<name>/SKILL.md, ... : one skill per folder
//	}
//
// The host checks every skill at load (paths, SKILL.md's frontmatter, the
// limits) and refuses the plugin, naming the file, if one is wrong; Check
// runs the same path checks in a plugin's own tests.
package skills

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

type source struct {
	path string // the skill path
	fsys fs.FS
	root string // the skill's folder in fsys
}

var registered []source

// Skill registers one skill: the folder root of fsys (SKILL.md at its top)
// served under the skill path p, such as "textkit-review" or
// "acme/billing/refunds" (the last segment is the skill's name).
func Skill(p string, fsys fs.FS, root string) {
	registered = append(registered, source{path: p, fsys: fsys, root: root})
}

// Dir registers every folder directly under root of fsys that holds a
// SKILL.md as a skill, its path the folder's name.
func Dir(fsys fs.FS, root string) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		registered = append(registered, source{path: root, fsys: fsys, root: root}) // List reports it
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := path.Join(root, e.Name())
		if _, err := fs.Stat(fsys, path.Join(dir, "SKILL.md")); err == nil {
			Skill(e.Name(), fsys, dir)
		}
	}
}

// File is one file of a declared skill, as list_skills reports it.
type File struct {
	Path string  `json:"path"`
	Text *string `json:"text,omitempty"`
	Blob *string `json:"blob,omitempty"`
}

// Declared is one skill as list_skills reports it.
type Declared struct {
	Path  string `json:"path"`
	Files []File `json:"files"`
}

// List reads the registered skills' files: text when a file is UTF-8,
// base64 otherwise. It fails on a skill without SKILL.md, a path with an
// empty, "." or ".." segment, or an unreadable file.
func List() ([]Declared, error) {
	var out []Declared
	for _, s := range registered {
		if err := checkPath(s.path); err != nil {
			return nil, fmt.Errorf("skills: skill %q: %v", s.path, err)
		}
		d := Declared{Path: s.path}
		err := fs.WalkDir(s.fsys, s.root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				return nil
			}
			if !e.Type().IsRegular() {
				return fmt.Errorf("%s is not a regular file", p)
			}
			b, err := fs.ReadFile(s.fsys, p)
			if err != nil {
				return err
			}
			rel := strings.TrimPrefix(p, s.root+"/")
			if s.root == "." {
				rel = p
			}
			f := File{Path: rel}
			if utf8.Valid(b) {
				t := string(b)
				f.Text = &t
			} else {
				enc := base64.StdEncoding.EncodeToString(b)
				f.Blob = &enc
			}
			d.Files = append(d.Files, f)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("skills: skill %q: %v", s.path, err)
		}
		sort.Slice(d.Files, func(i, j int) bool { return d.Files[i].Path < d.Files[j].Path })
		has := false
		for _, f := range d.Files {
			if err := checkPath(f.Path); err != nil {
				return nil, fmt.Errorf("skills: skill %q: file %q: %v", s.path, f.Path, err)
			}
			has = has || f.Path == "SKILL.md"
		}
		if !has {
			return nil, fmt.Errorf("skills: skill %q has no SKILL.md", s.path)
		}
		out = append(out, d)
	}
	return out, nil
}

// Check runs List: call it from a plugin's tests.
func Check() error { _, err := List(); return err }

func checkPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, `\`) {
		return errors.New("empty, absolute or with a backslash")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errors.New("an empty, . or .. segment")
		}
	}
	return nil
}

// listJSON is list_skills' output.
func listJSON() ([]byte, error) {
	l, err := List()
	if err != nil {
		return nil, err
	}
	if l == nil {
		l = []Declared{}
	}
	return json.Marshal(struct {
		Skills []Declared `json:"skills"`
	}{l})
}

// reset forgets the registered skills (tests).
func reset() { registered = nil }
