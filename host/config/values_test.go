package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fieldPaths lists the TOML paths of every Duration and Size field in t;
// an element of an array of tables is marked "[]".
func fieldPaths(t reflect.Type, prefix []string) [][]string {
	var out [][]string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		p := prefix
		if !f.Anonymous {
			if name == "" || name == "-" {
				continue
			}
			p = append(append([]string(nil), prefix...), name)
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeOf(Duration{}) || ft == reflect.TypeOf(Size{}):
			out = append(out, p)
		case ft.Kind() == reflect.Struct:
			out = append(out, fieldPaths(ft, p)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, fieldPaths(ft.Elem(), append(p, "[]"))...)
		}
	}
	return out
}

// TestEveryDurationAndSizeChecked: every duration or size key in the
// config, wherever it is, refuses a value that does not parse (and a
// duration below zero) naming the key, instead of silently taking its
// default. session_timeout and others were accepted as "banana".
func TestEveryDurationAndSizeChecked(t *testing.T) {
	paths := fieldPaths(reflect.TypeOf(Config{}), nil)
	if len(paths) < 10 {
		t.Fatalf("found only %d duration/size keys: %v", len(paths), paths)
	}
	for _, p := range paths {
		for _, bad := range []string{`"banana"`, `"-5s"`} {
			doc := tomlFor(p, bad)
			if doc == "" {
				t.Errorf("%v: the test cannot write a document for it", p)
				break
			}
			if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), p[len(p)-1]) {
				t.Errorf("%v = %s: %v (want an error naming the key)\n%s", p, bad, err, doc)
			}
		}
	}
	t.Logf("checked %d keys: %v", len(paths), paths)
}

// tomlFor writes a document setting the key at path p to value, with a
// path for any [[plugin]] table it opens.
func tomlFor(p []string, value string) string {
	var b strings.Builder
	var table []string
	for i, part := range p[:len(p)-1] {
		if part == "[]" {
			if i != len(p)-2 && strings.Contains(strings.Join(p[i+1:len(p)-1], ""), "[]") {
				return ""
			}
			name := strings.Join(table, ".")
			rest := p[i+1 : len(p)-1]
			b.WriteString("[[" + name + "]]\n")
			if name == "plugin" {
				b.WriteString("path = \"a.wasm\"\n")
			}
			if len(rest) > 0 {
				if strings.Contains(strings.Join(rest, ""), "[]") {
					return ""
				}
				b.WriteString("[" + name + "." + strings.Join(rest, ".") + "]\n")
			}
			b.WriteString(p[len(p)-1] + " = " + value + "\n")
			return b.String()
		}
		table = append(table, part)
	}
	if name := strings.Join(table, "."); name == "server.auth.oauth" {
		// the keys the table requires besides the one under test
		b.WriteString("[server.auth]\nresource = \"https://mcp.example.com/mcp\"\n[server.auth.oauth]\n" +
			"issuer = \"https://auth.example.com\"\njwks_url = \"https://auth.example.com/jwks\"\n")
	} else if len(table) > 0 {
		b.WriteString("[" + name + "]\n")
	}
	b.WriteString(p[len(p)-1] + " = " + value + "\n")
	return b.String()
}

// TestManyUnknownKeys: a file of thousands of unknown keys gets one short
// error naming the first ten with their lines and counting the rest (each
// key's line was found by a scan of the whole file, and every key was
// listed: 20,000 keys took over a minute and a message of 800 KB).
func TestManyUnknownKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("[server]\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	_, err := Parse([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), `line 2: unknown key "server.k0"`) ||
		!strings.Contains(err.Error(), "and 4990 more unknown keys") || len(err.Error()) > 2000 {
		t.Fatalf("%.300v", err)
	}
}
