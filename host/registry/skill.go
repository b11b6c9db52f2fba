package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"path"
	"sort"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry/internal/skillfmt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Skills: the io.modelcontextprotocol/skills extension (SEP-2640). A
// plugin declares skills through the optional list_skills export (ABI.md
// §5a): each skill's path and every file's bytes. The host checks them
// here, at load, and serves every file as an ordinary resource under
// skill://<path>/<file> from memory; the guest is not called again for
// them. Scopes, policy and collisions apply to them as to any resource.

// Limits on what one plugin may declare. The per-skill ones are the
// extension's (a host must accept skills up to them, a server should not
// serve larger ones).
const (
	MaxSkillsPerPlugin = 64
	MaxSkillFiles      = 512
	MaxSkillBytes      = 16 << 20
)

// SkillMD is the file every skill has at its root.
const SkillMD = "SKILL.md"

// DirectoryMIME is the mimeType of a directory resource.
const DirectoryMIME = "inode/directory"

// Skill is one skill a plugin serves.
type Skill struct {
	// URI is skill://<path>/SKILL.md.
	URI string
	// Path is the skill path; its last segment is the skill's name.
	Path string
	// Frontmatter is SKILL.md's YAML frontmatter as a JSON object.
	Frontmatter json.RawMessage
	// Files are the skill's files, SKILL.md included, by path.
	Files  []*SkillFile
	Plugin *plugin.Plugin
}

// Root is the skill's directory URI, skill://<path>.
func (s *Skill) Root() string { return "skill://" + s.Path }

// SkillDigestMeta is the _meta key of a skill file's resource that holds
// the file's digest ("sha256:<hex>").
const SkillDigestMeta = "mcpwasm/digest"

// SkillFile is one file of a skill, held by the host.
type SkillFile struct {
	Path     string // relative to the skill's root
	URI      string
	MIMEType string
	Data     []byte
	Binary   bool   // declared as a blob: read back as base64
	Digest   string // sha256:<hex>
	Skill    *Skill
}

// skillDecl is one skill of a list_skills result.
type skillDecl struct {
	Path  string `json:"path"`
	Files []struct {
		Path     string  `json:"path"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
		MIMEType string  `json:"mimeType"`
	} `json:"files"`
}

// readSkills reads a plugin's skills and returns them with one resource
// per file.
func readSkills(ctx context.Context, p *plugin.Plugin) ([]*Resource, error) {
	decls, err := readDefs[skillDecl](ctx, p, abi.ExportListSkills, "skills", "skill")
	if err != nil {
		return nil, err
	}
	return buildSkills(decls, p)
}

// buildSkills checks a plugin's declared skills and returns one resource
// per file.
func buildSkills(decls []skillDecl, p *plugin.Plugin) ([]*Resource, error) {
	if len(decls) > MaxSkillsPerPlugin {
		return nil, fmt.Errorf("list_skills: %d skills, more than %d", len(decls), MaxSkillsPerPlugin)
	}
	var out []*Resource
	var paths []string
	for i, d := range decls {
		s, err := buildSkill(d, p)
		if err != nil {
			return nil, fmt.Errorf("list_skills: skill #%d: %v", i, err)
		}
		for _, prev := range paths {
			if prev == s.Path || strings.HasPrefix(s.Path, prev+"/") || strings.HasPrefix(prev, s.Path+"/") {
				return nil, fmt.Errorf("list_skills: skills %q and %q overlap (a nested skill's files belong to the skill around it: declare them once)", prev, s.Path)
			}
		}
		paths = append(paths, s.Path)
		out = append(out, s.resources()...)
	}
	return out, nil
}

// skillOverlap refuses a skill nested in, or around, a skill another
// plugin serves (skill://review and skill://review/sub): the directory of
// the outer one would hide the inner one's files, and one plugin's skill
// would speak inside another's. Within one plugin buildSkills refuses it.
func (r *Registry) skillOverlap(e *Entry) error {
	for _, res := range e.Resources {
		if res.File == nil || res.File.Path != SkillMD {
			continue
		}
		root := res.File.Skill.Root()
		for _, prev := range r.resources {
			if prev.File == nil || prev.File.Path != SkillMD || prev.Plugin == res.Plugin {
				continue
			}
			if other := prev.File.Skill.Root(); strings.HasPrefix(root, other+"/") || strings.HasPrefix(other, root+"/") {
				return fmt.Errorf("skill %q overlaps skill %q of plugin %q (one would sit inside the other's folder)", root, other, prev.Plugin.Name())
			}
		}
	}
	return nil
}

// withSkills adds a plugin's skill files to the resources it declared; a
// URI both declare is a load error.
func withSkills(declared, skills []*Resource) ([]*Resource, error) {
	seen := make(map[string]bool, len(declared))
	for _, r := range declared {
		seen[r.Def.URI] = true
	}
	for _, r := range skills {
		if seen[r.Def.URI] {
			return nil, fmt.Errorf("list_skills: %q is also declared by list_resources", r.Def.URI)
		}
	}
	return append(declared, skills...), nil
}

// buildSkill checks one declared skill: its path, its files' paths, the
// limits and SKILL.md's frontmatter.
func buildSkill(d skillDecl, p *plugin.Plugin) (*Skill, error) {
	name, err := skillfmt.CheckSkillPath(d.Path)
	if err != nil {
		return nil, err
	}
	s := &Skill{URI: "skill://" + d.Path + "/" + SkillMD, Path: d.Path, Plugin: p}
	if len(d.Files) > MaxSkillFiles {
		return nil, fmt.Errorf("skill %q: %d files, more than %d", d.Path, len(d.Files), MaxSkillFiles)
	}
	total := 0
	seen := map[string]bool{}
	for _, f := range d.Files {
		if err := skillfmt.CheckFilePath(f.Path); err != nil {
			return nil, fmt.Errorf("skill %q: %v", d.Path, err)
		}
		if seen[f.Path] {
			return nil, fmt.Errorf("skill %q: file %q is declared twice", d.Path, f.Path)
		}
		seen[f.Path] = true
		sf := &SkillFile{Path: f.Path, URI: "skill://" + d.Path + "/" + f.Path, MIMEType: f.MIMEType, Skill: s}
		switch {
		case f.Text != nil && f.Blob == nil:
			sf.Data = []byte(*f.Text)
		case f.Blob != nil && f.Text == nil:
			b, err := base64.StdEncoding.DecodeString(*f.Blob)
			if err != nil {
				return nil, fmt.Errorf("skill %q: file %q: blob is not base64: %v", d.Path, f.Path, err)
			}
			sf.Data, sf.Binary = b, true
		default:
			return nil, fmt.Errorf("skill %q: file %q needs one of text or blob", d.Path, f.Path)
		}
		if total += len(sf.Data); total > MaxSkillBytes {
			return nil, fmt.Errorf("skill %q: files total more than %d bytes", d.Path, MaxSkillBytes)
		}
		sum := sha256.Sum256(sf.Data)
		sf.Digest = "sha256:" + hex.EncodeToString(sum[:])
		if sf.MIMEType == "" {
			sf.MIMEType = mimeOf(f.Path, sf.Binary)
		}
		s.Files = append(s.Files, sf)
	}
	// A path may not be both a file and a folder.
	for fp := range seen {
		for dir := path.Dir(fp); dir != "."; dir = path.Dir(dir) {
			if seen[dir] {
				return nil, fmt.Errorf("skill %q: %q is both a file and the folder of %q", d.Path, dir, fp)
			}
		}
	}
	if !seen[SkillMD] {
		return nil, fmt.Errorf("skill %q has no %s", d.Path, SkillMD)
	}
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	md := s.file(SkillMD)
	if md.Binary {
		return nil, fmt.Errorf("skill %q: %s must be text", d.Path, SkillMD)
	}
	md.MIMEType = "text/markdown"
	fm, err := skillfmt.Frontmatter(md.Data)
	if err != nil {
		return nil, fmt.Errorf("skill %q: %s: %v", d.Path, SkillMD, err)
	}
	if fm.Name != name {
		return nil, fmt.Errorf("skill %q: %s names the skill %q; the path's last segment must be its name", d.Path, SkillMD, fm.Name)
	}
	s.Frontmatter = fm.JSON
	return s, nil
}

func (s *Skill) file(p string) *SkillFile {
	for _, f := range s.Files {
		if f.Path == p {
			return f
		}
	}
	return nil
}

// resources are the skill's files as resources: SKILL.md named and
// described from its frontmatter, the others by their path.
func (s *Skill) resources() []*Resource {
	var fm struct{ Name, Description string }
	_ = json.Unmarshal(s.Frontmatter, &fm)
	out := make([]*Resource, 0, len(s.Files))
	for _, f := range s.Files {
		// The digest in _meta makes the declaration, and so its fingerprint
		// (host/trust), change with the file's content: an update that
		// rewrites a skill's text is held like a changed description.
		def := &mcp.Resource{URI: f.URI, Name: f.Path, MIMEType: f.MIMEType, Size: int64(len(f.Data)),
			Meta: mcp.Meta{SkillDigestMeta: f.Digest}}
		if f.Path == SkillMD {
			def.Name, def.Description = fm.Name, fm.Description
		}
		out = append(out, &Resource{Def: def, Plugin: s.Plugin, File: f})
	}
	return out
}

func mimeOf(p string, binary bool) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown":
		return "text/markdown"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	if binary {
		return "application/octet-stream"
	}
	return "text/plain"
}

// Contents is the file as resources/read returns it.
func (f *SkillFile) Contents() *mcp.ResourceContents {
	c := &mcp.ResourceContents{URI: f.URI, MIMEType: f.MIMEType}
	if f.Binary {
		c.Blob = f.Data
	} else {
		c.Text = string(f.Data)
	}
	return c
}

// skillFile returns the skill file served at uri, if any.
func (r *Registry) skillFile(uri string) *SkillFile {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if x, ok := r.resources[uri]; ok {
		return x.File
	}
	return nil
}

// Skills returns the skills served (those whose SKILL.md is served), by URI.
func (r *Registry) Skills() []*Skill {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Skill
	for _, x := range r.resources {
		if x.File != nil && x.File.Path == SkillMD {
			out = append(out, x.File.Skill)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// Skill returns the skill whose SKILL.md is served at uri.
func (r *Registry) Skill(uri string) (*Skill, bool) {
	f := r.skillFile(uri)
	if f == nil || f.Path != SkillMD {
		return nil, false
	}
	return f.Skill, true
}

// SkillDirectory returns the direct children of a directory of a served
// skill (its root, skill://<path>, or a folder in it), files with their
// resource metadata and folders as inode/directory resources, by URI, and
// the skill; ok is false when uri is no such directory.
func (r *Registry) SkillDirectory(uri string) (children []*mcp.Resource, owner *Skill, ok bool) {
	for _, s := range r.Skills() {
		root := s.Root()
		var rel string
		switch {
		case uri == root:
		case strings.HasPrefix(uri, root+"/") && len(uri) > len(root)+1:
			rel = strings.TrimPrefix(uri, root+"/")
		default:
			continue
		}
		dirs := map[string]bool{}
		var out []*mcp.Resource
		found := rel == ""
		for _, f := range s.Files {
			rest := f.Path
			if rel != "" {
				if !strings.HasPrefix(f.Path, rel+"/") {
					continue
				}
				found = true
				rest = strings.TrimPrefix(f.Path, rel+"/")
			}
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				d := rest[:i]
				if !dirs[d] {
					dirs[d] = true
					out = append(out, &mcp.Resource{URI: uri + "/" + d, Name: d, MIMEType: DirectoryMIME})
				}
				continue
			}
			out = append(out, &mcp.Resource{URI: f.URI, Name: rest, MIMEType: f.MIMEType, Size: int64(len(f.Data))})
		}
		if !found {
			continue
		}
		sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
		return out, s, true
	}
	return nil, nil, false
}
