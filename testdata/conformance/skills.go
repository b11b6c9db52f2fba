package main

import (
	"embed"
	"encoding/json"
	"io/fs"
	"path"
	"strings"
)

// The fixture's skills (ABI 1.1, list_skills): every file under skills/,
// one skill per folder, embedded at build time.
//
//go:embed skills
var skillFiles embed.FS

type skillFile struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

type skill struct {
	Path  string      `json:"path"`
	Files []skillFile `json:"files"`
}

func listSkills(json.RawMessage, callContext) (any, error) {
	bySkill := map[string]*skill{}
	var out []*skill
	err := fs.WalkDir(skillFiles, "skills", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, "skills/")
		name, file, _ := strings.Cut(rel, "/")
		b, err := skillFiles.ReadFile(p)
		if err != nil {
			return err
		}
		s := bySkill[name]
		if s == nil {
			s = &skill{Path: name}
			bySkill[name] = s
			out = append(out, s)
		}
		s.Files = append(s.Files, skillFile{Path: path.Clean(file), Text: string(b)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return struct {
		Skills []*skill `json:"skills"`
	}{out}, nil
}

//go:wasmexport list_skills
func exportListSkills() int32 { return serve(listSkills) }
