package resources

import (
	"reflect"
	"strings"
	"testing"
)

func TestTemplateMatch(t *testing.T) {
	for _, tc := range []struct {
		tmpl, uri string
		want      map[string]string // nil: no match
	}{
		{"parity://items/{id}", "parity://items/2", map[string]string{"id": "2"}},
		{"parity://items/{id}", "parity://items/a%20b", map[string]string{"id": "a b"}},
		{"parity://items/{id}", "parity://items/1/2", nil},              // '/' is not in a simple value
		{"parity://items/{id}", "parity://items/a b", nil},              // nor is a space
		{"parity://items/{id}", "parity://items/%zz", nil},              // a bad escape
		{"parity://items/{id}", "parity://other/2", nil},                // the literal differs
		{"parity://items/{id}", "parity://items/", map[string]string{}}, // id undefined
		{"file:///{+path}", "file:///home/ada/a%20b.txt", map[string]string{"path": "home/ada/a b.txt"}},
		{"file:///{+path}", "file:///", map[string]string{}},
		{"db://{table}/{id}", "db://users/42", map[string]string{"table": "users", "id": "42"}},
		{"db://{table}/{id}", "db://users", nil},
		{"db://{table}/rows/{id}.json", "db://t/rows/7.json", map[string]string{"table": "t", "id": "7"}},
		{"doc://{+path}{#section}", "doc://a/b#intro", map[string]string{"path": "a/b", "section": "intro"}},
		{"doc://{+path}{?q,lang}", "doc://a/b?q=go&lang=en", map[string]string{"path": "a/b", "q": "go", "lang": "en"}},
		{"doc://{+path}{?q,lang}", "doc://a/b?lang=en", map[string]string{"path": "a/b", "lang": "en"}},
		{"doc://{+path}{?q,lang}", "doc://a/b?lang=en&q=go", map[string]string{"path": "a/b?lang=en&q=go"}}, // out of order: {+path} takes it all
		{"doc://x{?q,lang}", "doc://x?lang=en&q=go", nil},                                                   // named values come in order
		{"doc://x{?q}", "doc://x?p=1", nil},
		{"doc://x{?q}", "doc://x?q", nil}, // ? and & always have '='
		{"doc://x{?q}{&page}", "doc://x?q=a%26b&page=2", map[string]string{"q": "a&b", "page": "2"}},
		{"geo://{lat,lon}", "geo://52.5,13.4", map[string]string{"lat": "52.5", "lon": "13.4"}},
		{"geo://{lat,lon}", "geo://52.5", map[string]string{"lat": "52.5"}},
		{"geo://{lat,lon}", "geo://1,2,3", nil},
		{"tree://root{/a,b}", "tree://root/x/y", map[string]string{"a": "x", "b": "y"}},
		{"tree://root{/a}", "tree://root/x/y", nil},
		{"v://x{.ext}", "v://x.tar", map[string]string{"ext": "tar"}},
		{"m://x{;w,h}", "m://x;w=3;h", map[string]string{"w": "3", "h": ""}},
		{"p://{id:3}", "p://abc", map[string]string{"id": "abc"}},
		{"plain://fixed", "plain://fixed", map[string]string{}},
		{"plain://fixed", "plain://fixed2", nil},
	} {
		tp, err := parseTemplate(tc.tmpl)
		if err != nil {
			t.Errorf("%s: %v", tc.tmpl, err)
			continue
		}
		got, ok := tp.match(tc.uri)
		if tc.want == nil {
			if ok {
				t.Errorf("%s matched %s: %v", tc.tmpl, tc.uri, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s on %s = %v, %v; want %v", tc.tmpl, tc.uri, got, ok, tc.want)
		}
	}
}

func TestTemplateNames(t *testing.T) {
	tp, err := parseTemplate("x://{a}/{+b}{?c,d}")
	if err != nil || !reflect.DeepEqual(tp.names, []string{"a", "b", "c", "d"}) {
		t.Fatalf("names = %v, %v", tp, err)
	}
}

func TestTemplateParseErrors(t *testing.T) {
	for tmpl, want := range map[string]string{
		"x://{a":        "'{' without a '}'",
		"x://a}":        "'}' without a '{'",
		"x://{}":        "empty expression",
		"x://{+}":       "empty expression",
		"x://{=a}":      "operator =, which RFC 6570 reserves",
		"x://{a*}":      "explode modifier",
		"x://{a:0}":     "invalid prefix modifier",
		"x://{a:12345}": "invalid prefix modifier",
		"x://{a b}":     "invalid variable name",
		"x://{a,,b}":    "invalid variable name",
		"x://{a}/{a}":   "uses the variable a twice",
	} {
		_, err := parseTemplate(tmpl)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to contain %q", tmpl, err, want)
		}
	}
}

// TestTemplateMatchIsNotExponential: adjacent expressions on a long URI
// would take exponential time without the matcher's memo.
func TestTemplateMatchIsNotExponential(t *testing.T) {
	tp, err := parseTemplate("x://{a}{b}{c}{d}{e}{f}!")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tp.match("x://" + strings.Repeat("a", 300)); ok {
		t.Fatal("matched a URI without the final '!'")
	}
}
