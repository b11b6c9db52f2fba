package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module's root, from this package's folder.
const root = "../.."

// rows returns the paths the README's Layout table names in its first
// column (each in backquotes; a row may name several).
func rows(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Layout\n")
	if start < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	text = text[start:]
	if end := strings.Index(text[1:], "\n## "); end >= 0 {
		text = text[:end+1]
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			out = append(out, strings.TrimSuffix(m[1], "/"))
		}
	}
	return out
}

// packages lists the module's package folders (slash paths from the root):
// folders with a non-test .go file, outside testdata, hidden folders and
// other modules (a folder with its own go.mod), and below plugins/ and
// sdk-guest/, whose rows speak for what they hold.
func packages(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" ||
				name == "node_modules" || name == "target" || rel == "plugins" || rel == "sdk-guest") {
				return fs.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && rel != "." {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			seen[filepath.ToSlash(filepath.Dir(rel))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range seen {
		if p != "." {
			out = append(out, p)
		}
	}
	return out
}

// TestReadmeLayoutMatchesPackages: each package has a row of its own when
// it is a top-level part (cmd/X, internal/X, host/X, host/internal/X, and
// any package directly in a folder with no Go of its own), else its nearest
// listed ancestor's; each row names a path that exists, and a path is named
// once.
func TestReadmeLayoutMatchesPackages(t *testing.T) {
	listed := map[string]bool{}
	for _, r := range rows(t) {
		if listed[r] {
			t.Errorf("README Layout names %s twice", r)
		}
		listed[r] = true
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(r))); err != nil {
			t.Errorf("README Layout names %s, which does not exist", r)
		}
	}
	if len(listed) < 10 {
		t.Fatalf("found only %d rows in README's Layout table", len(listed))
	}
	for _, p := range packages(t) {
		if listed[p] || (!ownRow(p) && ancestorListed(p, listed)) {
			continue
		}
		t.Errorf("package %s has no row in README's Layout table", p)
	}
}

// ownRow reports whether p is a top-level part that needs a row of its own.
func ownRow(p string) bool {
	parts := strings.Split(p, "/")
	return len(parts) <= 2 || (len(parts) == 3 && parts[0] == "host" && parts[1] == "internal")
}

func ancestorListed(p string, listed map[string]bool) bool {
	for d := filepath.ToSlash(filepath.Dir(p)); d != "." && d != "/"; d = filepath.ToSlash(filepath.Dir(d)) {
		if listed[d] {
			return true
		}
	}
	return false
}
