// Package scaffold writes a new plugin folder for "mcpwasm new": the source
// of one hello tool, a build.sh that produces NAME.wasm, a README, and a copy
// of the guest SDK for the language in mcpwasm-sdk/, so the folder builds
// with nothing but the language's toolchain.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	sdkguest "github.com/mcpwasm/mcpwasm/sdk-guest"
)

//go:embed templates
var templates embed.FS

// A Lang is a guest language "mcpwasm new" can write a plugin in.
type Lang struct {
	// Name is the command-line name: rust, go, tinygo or as.
	Name string
	// Title is the language's name for people.
	Title string

	templates string       // folder under templates/
	source    string       // the file holding the tools
	needs     string       // the toolchain, for the README
	test      string       // the native test command, for the README
	sdk       func() fs.FS // the guest SDK copied into mcpwasm-sdk/
}

// Langs lists the languages in the order "mcpwasm new" shows them.
var Langs = []Lang{
	{Name: "rust", Title: "Rust", templates: "rust", source: "src/lib.rs", sdk: sdkguest.Rust,
		needs: "Rust 1.63 or newer with the wasm32-wasip1 target (or Debian's rustc, cargo and libstd-rust-dev-wasm32)",
		test:  "cargo test"},
	{Name: "go", Title: "Go", templates: "go", source: "main.go", sdk: sdkguest.Go,
		needs: "Go 1.24 or newer", test: "go test"},
	{Name: "tinygo", Title: "TinyGo", templates: "go", source: "main.go", sdk: sdkguest.Go,
		needs: "TinyGo 0.40 (and Go 1.24 or 1.25 for it to use)", test: "go test"},
	{Name: "as", Title: "AssemblyScript", templates: "as", source: "assembly/index.ts", sdk: sdkguest.AssemblyScript,
		needs: "Node.js 18 or newer and npm (the first build installs assemblyscript and @extism/as-pdk)",
		test:  "npm test"},
}

// LangNames returns the languages' command-line names, joined by "|".
func LangNames() string {
	names := make([]string, len(Langs))
	for i, l := range Langs {
		names[i] = l.Name
	}
	return strings.Join(names, "|")
}

// FindLang returns the language named name (case-insensitive; also accepts
// "assemblyscript" for "as").
func FindLang(name string) (Lang, bool) {
	name = strings.ToLower(name)
	if name == "assemblyscript" {
		name = "as"
	}
	for _, l := range Langs {
		if l.Name == name {
			return l, true
		}
	}
	return Lang{}, false
}

// sdkDir is where the guest SDK is copied, inside the new folder.
const sdkDir = "mcpwasm-sdk"

// validName is a plugin name that is also a valid Rust crate, Go module and
// npm package name, and a valid tool-name prefix: lower case, starting with a
// letter.
var validName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// Write creates the folder dir for a plugin named after dir's last element,
// in lang, and returns the files it wrote, relative to dir. dir must not
// exist, or be an empty folder: Write never overwrites a file.
func Write(lang Lang, dir string) ([]string, error) {
	name := filepath.Base(filepath.Clean(dir))
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("%q is not a valid plugin name: use lower-case letters, digits, '-' and '_', starting with a letter (at most 64)", name)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s already exists and is not empty; choose another name or remove it", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	files, err := render(lang, name)
	if err != nil {
		return nil, err
	}
	if err := copySDK(lang.sdk(), files); err != nil {
		return nil, fmt.Errorf("copying the %s SDK: %w", lang.Title, err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		mode := os.FileMode(0o644)
		if path.Ext(p) == ".sh" {
			mode = 0o755
		}
		// O_EXCL: never replace a file, even one created since the check above.
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(files[p])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// render executes lang's templates and the shared README template.
func render(lang Lang, name string) (map[string][]byte, error) {
	data := map[string]any{
		"Name":      name,
		"CrateFile": strings.ReplaceAll(name, "-", "_"), // Cargo's artifact name
		"Lang":      lang.Name,
		"LangName":  lang.Title,
		"TinyGo":    lang.Name == "tinygo",
		"Source":    lang.source,
		"Needs":     lang.needs,
		"Test":      lang.test,
	}
	files := map[string][]byte{}
	add := func(tmplPath, out string) error {
		t, err := template.ParseFS(templates, tmplPath)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return fmt.Errorf("%s: %w", tmplPath, err)
		}
		files[out] = b.Bytes()
		return nil
	}
	// The language's own files, then the example skill every language ships
	// (skills/greeting/SKILL.md, embedded by each language's build).
	for _, tree := range []struct{ root, out string }{
		{"templates/" + lang.templates, ""},
		{"templates/skills", "skills/"},
	} {
		err := fs.WalkDir(templates, tree.root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			out := tree.out + strings.TrimSuffix(strings.TrimPrefix(p, tree.root+"/"), ".tmpl")
			if out == "gitignore" { // embed leaves out dot files, so it is stored without the dot
				out = ".gitignore"
			}
			return add(p, out)
		})
		if err != nil {
			return nil, err
		}
	}
	return files, add("templates/README.md.tmpl", "README.md")
}

// copySDK adds the SDK's files under mcpwasm-sdk/, restoring the Go SDK's
// go.mod from go.mod.txt.
func copySDK(sdk fs.FS, files map[string][]byte) error {
	return fs.WalkDir(sdk, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sdk, p)
		if err != nil {
			return err
		}
		if path.Base(p) == "go.mod.txt" {
			p = path.Join(path.Dir(p), "go.mod")
		}
		files[path.Join(sdkDir, p)] = b
		return nil
	})
}
