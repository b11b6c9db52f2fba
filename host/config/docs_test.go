package config

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docFile is the configuration reference checked against the structs.
const docFile = "../../docs/config.md"

// TestDocsListEveryKey: docs/config.md names every TOML key the config
// structs accept, in the table of its section, with its type, a default
// and a flag cell; and names no key the structs do not accept. A key added
// to a struct without a row, a row left behind by a removed key, or a type
// changed on one side only fails here.
func TestDocsListEveryKey(t *testing.T) {
	want := map[string]string{} // "server.auth.tokens_file" → "string"
	sections := map[string]bool{}
	structKeys(reflect.TypeOf(Config{}), "", want, sections)
	if len(want) < 50 {
		t.Fatalf("found only %d keys in the structs: the walk is broken", len(want))
	}

	data, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	got, headings, err := docKeys(string(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sortedKeys(want) {
		row, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%s: key %s (%s) is not documented", docFile, k, want[k])
		case row.typ != want[k]:
			t.Errorf("%s: key %s is documented as %q; the struct takes %q", docFile, k, row.typ, want[k])
		case row.def == "" || row.flag == "":
			t.Errorf("%s: key %s has an empty default or flag cell (write — for none)", docFile, k)
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: documents key %s, which the config does not accept", docFile, k)
		}
	}
	for s := range sections {
		if !headings[s] {
			t.Errorf("%s: no heading for the table [%s]", docFile, s)
		}
	}
}

// structKeys walks a config struct: every toml-tagged field is a key of
// section, with its type in the doc's words; struct fields open sections
// of their own.
func structKeys(t reflect.Type, section string, keys map[string]string, sections map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			structKeys(f.Type, section, keys, sections)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := name
		if section != "" {
			path = section + "." + name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		typ := docType(ft)
		if section != "" {
			keys[path] = typ
		}
		switch typ {
		case "table", "array of tables":
			sections[path] = true
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			structKeys(ft, path, keys, sections)
		}
	}
}

// docType names a field's type as docs/config.md writes it.
func docType(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(Duration{}):
		return "duration"
	case reflect.TypeOf(Size{}):
		return "size"
	case reflect.TypeOf(map[string]Value{}):
		return "table of values"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Struct:
		return "table"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "array of tables"
		}
		return "array of " + plural(docType(t.Elem()))
	case reflect.Map:
		return "table of " + plural(docType(t.Elem()))
	}
	panic(fmt.Sprintf("docType: no name for %v", t))
}

func plural(s string) string { return s + "s" }

// docRow is one key's row in docs/config.md.
type docRow struct{ typ, def, flag string }

var (
	sectionHeading = regexp.MustCompile("^#+ `\\[\\[?([a-z_.]+)\\]\\]?`\\s*$")
	keyRow         = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\|")
)

// docKeys reads the key tables of docs/config.md: a heading naming a
// table (`[server.auth]`, `[[plugin]]`) opens its section; a row whose
// first cell is a key belongs to it. Other headings close the section, so
// the flag and environment tables are not read as keys.
func docKeys(doc string) (map[string]docRow, map[string]bool, error) {
	rows := map[string]docRow{}
	headings := map[string]bool{}
	section := ""
	for n, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "#") {
			section = ""
			if m := sectionHeading.FindStringSubmatch(line); m != nil {
				section = m[1]
				headings[section] = true
			}
			continue
		}
		m := keyRow.FindStringSubmatch(line)
		if m == nil || section == "" {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 5 {
			return nil, nil, fmt.Errorf("%s:%d: a key row needs 5 cells (key, type, default, flag, meaning), has %d", docFile, n+1, len(cells))
		}
		k := section + "." + m[1]
		if _, dup := rows[k]; dup {
			return nil, nil, fmt.Errorf("%s:%d: key %s documented twice", docFile, n+1, k)
		}
		rows[k] = docRow{typ: cells[1], def: strings.TrimSpace(cells[2]), flag: strings.TrimSpace(cells[3])}
	}
	return rows, headings, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
