//go:build !wasip1

package resources

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

// withResources replaces the registry for one test.
func withResources(t *testing.T, register func()) {
	t.Helper()
	savedR, savedT := concrete, templates
	concrete, templates = nil, nil
	register()
	t.Cleanup(func() { concrete, templates = savedR, savedT })
}

func text(s string) Handler {
	return func(*Request) (*Result, error) { return Text(s), nil }
}

func TestLists(t *testing.T) {
	withResources(t, func() {
		Resource("notes://today", "today", text("x")).Title("Today").Description("Today's note").
			MimeType("text/plain").Size(12).Annotations(`{"priority":0.5}`)
		Resource("notes://bare", "bare", text("y"))
		Template("notes://day/{date}", "day", text("z")).Title("Day").Description("A day's note").
			MimeType("text/markdown").Annotations(`{"audience":["user"]}`)
	})
	out, err := List()
	want := `{"resources":[{"uri":"notes://today","name":"today","title":"Today","description":"Today's note",` +
		`"mimeType":"text/plain","size":12,"annotations":{"priority":0.5}},{"uri":"notes://bare","name":"bare"}]}`
	if err != nil || string(out) != want {
		t.Errorf("List:\ngot  %s (%v)\nwant %s", out, err, want)
	}
	out, err = ListTemplates()
	want = `{"resourceTemplates":[{"uriTemplate":"notes://day/{date}","name":"day","title":"Day",` +
		`"description":"A day's note","mimeType":"text/markdown","annotations":{"audience":["user"]}}]}`
	if err != nil || string(out) != want {
		t.Errorf("ListTemplates:\ngot  %s (%v)\nwant %s", out, err, want)
	}
	withResources(t, func() {})
	if out, err := List(); err != nil || string(out) != `{"resources":[]}` {
		t.Errorf("empty List = %s, %v", out, err)
	}
}

func TestMistakesStopTheLoad(t *testing.T) {
	h := text("x")
	for _, tc := range []struct {
		name, want string
		register   func()
	}{
		{"no scheme", `resource "today": the URI needs a scheme`, func() { Resource("today", "today", h) }},
		{"no name", `resource "a://b" has no name`, func() { Resource("a://b", "", h) }},
		{"no handler", `resource "a://b" has no handler`, func() { Resource("a://b", "b", nil) }},
		{"twice", `resource "a://b" is registered twice`, func() { Resource("a://b", "b", h); Resource("a://b", "c", h) }},
		{"negative size", `resource "a://b": size -1 is negative`, func() { Resource("a://b", "b", h).Size(-1) }},
		{"annotations", `resource "a://b": annotations must be a JSON object`, func() { Resource("a://b", "b", h).Annotations(`[]`) }},
		{"bad template", `resource template "a://{x" has a '{' without a '}'`, func() { Template("a://{x", "x", h) }},
		{"explode", `resource template "a://{x*}" uses the explode modifier`, func() { Template("a://{x*}", "x", h) }},
		{"no variables", `resource template "a://b" has no {variables}`, func() { Template("a://b", "b", h) }},
		{"template twice", `resource template "a://{x}" is registered twice`, func() { Template("a://{x}", "x", h); Template("a://{x}", "y", h) }},
		{"template no name", `resource template "a://{x}" has no name`, func() { Template("a://{x}", "", h) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withResources(t, tc.register)
			// list_tools runs the same check: the host calls it first, so
			// the plugin fails to load with this message.
			_, err := mcpwasm.ListTools()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ListTools: %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	var seen *Request
	withResources(t, func() {
		Resource("notes://today", "today", text("Buy milk")).MimeType("text/plain")
		Resource("notes://logo", "logo", func(*Request) (*Result, error) { return Blob([]byte{0, 1, 2, 3}), nil }).
			MimeType("image/png")
		Resource("notes://empty", "empty", func(*Request) (*Result, error) { return Blob(nil).Add(Contents{Text: ""}), nil })
		// A concrete resource wins over a template matching the same URI.
		Resource("notes://day/special", "special", text("special"))
		Template("notes://day/{date}{?lang}", "day", func(r *Request) (*Result, error) {
			seen = r
			if r.Vars["date"] == "missing" {
				return nil, fmt.Errorf("no note for %s: %w", r.Vars["date"], ErrNotFound)
			}
			return (&Result{}).Add(Contents{Text: "note of " + r.Vars["date"] + " in " + r.Vars["lang"]},
				Contents{URI: "notes://other", MimeType: "text/x-other", Text: "other"}), nil
		}).MimeType("text/markdown")
		Resource("notes://nil", "nil", func(*Request) (*Result, error) { return nil, nil })
		Resource("notes://fail", "fail", func(*Request) (*Result, error) { return Text("ignored"), errors.New("disk on fire") })
		Resource("notes://panic", "panic", func(*Request) (*Result, error) { panic("boom") })
		Resource("notes://unencodable", "unencodable", func(*Request) (*Result, error) {
			r := Text("x")
			r.Meta = map[string]any{"f": func() {}}
			return r, nil
		})
	})
	for _, tc := range []struct{ uri, want, err string }{
		{"notes://today", `{"contents":[{"uri":"notes://today","mimeType":"text/plain","text":"Buy milk"}]}`, ""},
		{"notes://logo", `{"contents":[{"uri":"notes://logo","mimeType":"image/png","blob":"AAECAw=="}]}`, ""},
		{"notes://empty", `{"contents":[{"uri":"notes://empty","blob":""},{"uri":"notes://empty","text":""}]}`, ""},
		{"notes://day/special", `{"contents":[{"uri":"notes://day/special","text":"special"}]}`, ""},
		{"notes://day/2024-05-01?lang=en", `{"contents":[{"uri":"notes://day/2024-05-01?lang=en","mimeType":"text/markdown","text":"note of 2024-05-01 in en"},` +
			`{"uri":"notes://other","mimeType":"text/x-other","text":"other"}]}`, ""},
		{"notes://day/missing", "", "no note for missing: not found"},
		{"notes://nowhere", "", `resource "notes://nowhere" not found`},
		{"notes://nil", "", `the handler of the resource "notes://nil" returned no contents`},
		{"notes://fail", "", "disk on fire"},
		{"notes://panic", "", `internal error: the read of the resource "notes://panic" panicked: boom`},
		{"notes://unencodable", "", `the result of reading "notes://unencodable" cannot be encoded as JSON`},
	} {
		inv := Invoke(tc.uri)
		if tc.err != "" {
			if inv.Err == nil || !strings.Contains(inv.Err.Error(), tc.err) || inv.Output != nil {
				t.Errorf("%s: got %s, %v; want the error %q", tc.uri, inv.Output, inv.Err, tc.err)
			}
			continue
		}
		if inv.Err != nil || string(inv.Output) != tc.want {
			t.Errorf("%s:\ngot  %s (%v)\nwant %s", tc.uri, inv.Output, inv.Err, tc.want)
		}
	}
	if seen == nil || seen.URI != "notes://day/missing" || seen.Template != "notes://day/{date}{?lang}" ||
		len(seen.Vars) != 1 || seen.Context.Plugin != "test" {
		t.Errorf("the template handler saw %+v", seen)
	}
	inv := Invoke("notes://logo")
	if c := inv.Result.Contents; len(c) != 1 || string(c[0].Blob) != "\x00\x01\x02\x03" || inv.Text() != "" {
		t.Errorf("decoded blob = %+v", inv.Result)
	}
	if got := Invoke("notes://day/1?lang=de").Text(); got != "note of 1 in de\nother" {
		t.Errorf("Text() = %q", got)
	}
}

func TestReadHostFunctions(t *testing.T) {
	withResources(t, func() {
		Resource("a://b", "b", func(r *Request) (*Result, error) {
			r.Log(mcpwasm.LevelInfo, "reading "+r.URI)
			r.NotifyResourceUpdated("a://c")
			r.NotifyResourceListChanged()
			return Text("ok"), nil
		})
	})
	inv := Invoke("a://b")
	var got []string
	for _, n := range inv.Notifications {
		got = append(got, n.Function+" "+string(n.Payload))
	}
	want := []string{`notify_logging_message {"level":"info","data":"reading a://b"}`,
		`notify_resource_updated {"uri":"a://c"}`, `notify_resource_list_changed `}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notifications:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMalformedInput(t *testing.T) {
	for _, in := range []string{`garbage`, `[]`, `{"request":{"uri":1}}`} {
		if inv := InvokeInput([]byte(in)); inv.Err == nil || inv.Output != nil {
			t.Errorf("%s: want an error and no output, got %s", in, inv.Output)
		}
	}
}
