package wasmbin

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// Exports, which reads the export section alone, finds what Inspect finds
// in every fixture, and refuses a module cut inside its export section.
func TestExportsMatchesInspect(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixture.Dir(), "*.wasm"))
	if len(files) < 10 {
		fixture.Missing(t, "%d fixtures in %s: run testdata/build.sh", len(files), fixture.Dir())
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Inspect(data)
		if err != nil {
			continue // refused modules are Inspect's tests
		}
		got, err := Exports(data)
		if err != nil || !reflect.DeepEqual(got, m.Exports) {
			t.Errorf("%s: Exports = %v, %v; Inspect found %v", filepath.Base(f), got, err, m.Exports)
		}
		for _, s := range rawSections(t, data) {
			if s[0] != secExport {
				continue
			}
			end := len(data) - len(s) // not exact: the section is cut wherever it starts
			for i := range data {
				if string(data[i:min(i+len(s), len(data))]) == string(s) {
					end = i + len(s) - 1
					break
				}
			}
			if _, err := Exports(data[:end]); err == nil {
				t.Errorf("%s: Exports accepted the module cut inside its export section", filepath.Base(f))
			}
		}
	}
}
