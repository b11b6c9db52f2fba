package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cedar-policy/cedar-go/types"
)

func mustParse(t testing.TB, text string) *Set {
	t.Helper()
	s, err := Parse(Document{Name: "p.cedar", Text: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// monday10 is a Monday at 10:00 UTC.
var monday10 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func toolReq(user string, tool string, args string) Request {
	return Request{
		Principal: &Principal{Name: user, Auth: "static", Transport: "http"},
		Action:    CallTool,
		Target:    Target{Type: TypeTool, Name: tool, Declared: tool, Annotations: DefaultAnnotations, Plugin: Plugin{Name: "fs", Signature: "unsigned"}},
		Arguments: json.RawMessage(args),
		Time:      monday10,
	}
}

func TestParseErrorNamesFileLine(t *testing.T) {
	_, err := Parse(Document{Name: "a.cedar", Text: []byte("permit(principal, action, resource);\n")},
		Document{Name: "dir/b.cedar", Text: []byte("permit(principal, action, resource);\n\nforbid(principal, action, resource)\n  when { context.x < };\n")})
	if err == nil {
		t.Fatal("a syntax error was accepted")
	}
	var pe *Error
	if !strings.Contains(err.Error(), "dir/b.cedar:4:") || !strings.Contains(err.Error(), "syntax error") {
		t.Fatalf("error does not name file and line: %v", err)
	}
	if !errorsAs(err, &pe) || pe.Line != 4 || pe.File != "dir/b.cedar" {
		t.Fatalf("structured error: %#v", pe)
	}
}

func errorsAs(err error, pe **Error) bool {
	type unwrapper interface{ Unwrap() []error }
	if u, ok := err.(unwrapper); ok {
		for _, e := range u.Unwrap() {
			if errorsAs(e, pe) {
				return true
			}
		}
	}
	e, ok := err.(*Error)
	if ok {
		*pe = e
	}
	return ok
}

func TestDuplicateIDNamesBoth(t *testing.T) {
	_, err := Parse(Document{Name: "a.cedar", Text: []byte("@id(\"x\")\npermit(principal, action, resource);\n")},
		Document{Name: "b.cedar", Text: []byte("\n\n@id(\"x\")\nforbid(principal, action, resource);\n")})
	if err == nil || !strings.Contains(err.Error(), "b.cedar:3") || !strings.Contains(err.Error(), "a.cedar:1") {
		t.Fatalf("want both places named, got %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Load([]string{filepath.Join(dir, "missing.cedar")}, "")
	if err == nil || !strings.Contains(err.Error(), "missing.cedar") {
		t.Fatalf("missing file: %v", err)
	}
	good := filepath.Join(dir, "good.cedar")
	os.WriteFile(good, []byte("permit(principal, action, resource) when { context.arguments.nope == 1 };"), 0o600)
	sc := filepath.Join(dir, "s.cedarschema")
	os.WriteFile(sc, []byte(GenerateSchema(nil).Text), 0o600)
	if _, err := Load([]string{good}, ""); err != nil {
		t.Fatalf("without a schema nothing is checked: %v", err)
	}
	_, err = Load([]string{good}, sc)
	if err == nil || !strings.Contains(err.Error(), "good.cedar:1") || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("schema check: %v", err)
	}
	os.WriteFile(sc, []byte("entity ;"), 0o600)
	if _, err = Load([]string{good}, sc); err == nil || !strings.Contains(err.Error(), "s.cedarschema") {
		t.Fatalf("bad schema: %v", err)
	}
	if _, err = Load(nil, ""); err == nil {
		t.Fatal("no file accepted")
	}
}

func TestDecisions(t *testing.T) {
	s := mustParse(t, `
@id("allow-alice")
permit(principal == User::"alice", action, resource);

@id("no-write")
@reason("writing is off today")
forbid(principal, action == Action::"call_tool", resource == Tool::"fs_write");
`)
	d := s.Authorize(toolReq("alice", "fs_read", `{}`))
	if !d.Allow || !slices.Equal(d.Policies, []string{"allow-alice"}) {
		t.Fatalf("alice read: %+v", d)
	}
	d = s.Authorize(toolReq("alice", "fs_write", `{}`))
	if d.Allow || !slices.Equal(d.Policies, []string{"no-write"}) || d.Reason != "writing is off today" {
		t.Fatalf("alice write: %+v", d)
	}
	msg := d.Message("alice", CallTool, `tool "fs_write"`)
	if !strings.Contains(msg, `"no-write"`) || !strings.Contains(msg, "writing is off today") {
		t.Fatalf("message: %s", msg)
	}
	d = s.Authorize(toolReq("bob", "fs_read", `{}`))
	if d.Allow || len(d.Policies) != 0 {
		t.Fatalf("bob, nothing permits: %+v", d)
	}
	if m := d.Message("bob", CallTool, `tool "fs_read"`); !strings.Contains(m, "no policy permits call_tool") {
		t.Fatalf("message: %s", m)
	}
	// No @id: the id is the file and line.
	s = mustParse(t, "\n\npermit(principal, action, resource);")
	if d := s.Authorize(toolReq("x", "t", "")); !d.Allow || d.Policies[0] != "p.cedar:3" {
		t.Fatalf("%+v", d)
	}
}

// TestForbidErrorDenies: a forbid that cannot be evaluated denies (Cedar
// alone would skip it and allow); a permit that errors permits nothing.
func TestForbidErrorDenies(t *testing.T) {
	s := mustParse(t, `
@id("all") permit(principal, action, resource);
@id("small") forbid(principal, action, resource) when { context.arguments.n > 10 };
`)
	if d := s.Authorize(toolReq("a", "t", `{"n": 11}`)); d.Allow {
		t.Fatal("n=11 allowed")
	}
	if d := s.Authorize(toolReq("a", "t", `{"n": 3}`)); !d.Allow {
		t.Fatalf("n=3 denied: %+v", d)
	}
	// 1e3 and 2^64 are not Longs: they arrive as strings, the forbid errors, the call is denied.
	for _, n := range []string{`1e3`, `18446744073709551616`, `11.5`} {
		d := s.Authorize(toolReq("a", "t", `{"n": `+n+`}`))
		if d.Allow || !slices.Equal(d.Policies, []string{"small"}) || len(d.Errors) == 0 {
			t.Fatalf("n=%s: %+v", n, d)
		}
	}
	// Missing attribute: the forbid errors too.
	if d := s.Authorize(toolReq("a", "t", `{}`)); d.Allow {
		t.Fatal("forbid erroring on a missing argument allowed the call")
	}
	p := mustParse(t, `@id("p") permit(principal, action, resource) when { context.arguments.n > 10 };`)
	if d := p.Authorize(toolReq("a", "t", `{}`)); d.Allow || len(d.Errors) != 1 {
		t.Fatalf("erroring permit: %+v", d)
	}
}

func TestNilSetAllows(t *testing.T) {
	var s *Set
	if d := s.Authorize(toolReq("a", "t", `{`)); !d.Allow {
		t.Fatal("nil set denied")
	}
}

func TestBadArgumentsDeny(t *testing.T) {
	s := mustParse(t, `permit(principal, action, resource);`)
	for _, a := range []string{`[1]`, `{`, `"x"`} {
		if d := s.Authorize(toolReq("a", "t", a)); d.Allow {
			t.Fatalf("arguments %s allowed", a)
		}
	}
}

func TestArguments(t *testing.T) {
	r, err := Arguments(json.RawMessage(`{"s":"x","b":true,"i":-42,"max":9223372036854775807,"big":9223372036854775808,
		"f":1.5,"e":1e3,"n":null,"a":[1,1,"y",null],"o":{"k":{"z":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := types.NewRecord(types.RecordMap{
		"s": types.String("x"), "b": types.True, "i": types.Long(-42), "max": types.Long(9223372036854775807),
		"big": types.String("9223372036854775808"), "f": types.String("1.5"), "e": types.String("1e3"),
		"a": types.NewSet(types.Long(1), types.String("y")),
		"o": types.NewRecord(types.RecordMap{"k": types.NewRecord(types.RecordMap{"z": types.Long(2)})}),
	})
	if !r.Equal(want) {
		t.Fatalf("got %s\nwant %s", r.MarshalCedar(), want.MarshalCedar())
	}
	deep := strings.Repeat(`{"d":`, 40) + "1" + strings.Repeat("}", 40)
	r, err = Arguments(json.RawMessage(deep))
	if err != nil {
		t.Fatal(err)
	}
	v := types.Value(r)
	for i := 0; i <= maxDepth; i++ {
		rec, ok := v.(types.Record)
		if !ok {
			t.Fatalf("level %d is %T", i, v)
		}
		v, _ = rec.Get("d")
	}
	if s, ok := v.(types.String); !ok || !strings.HasPrefix(string(s), `{"d":`) {
		t.Fatalf("beyond the depth: %v", v)
	}
	if r, err := Arguments(nil); err != nil || r.Len() != 0 {
		t.Fatal("absent arguments")
	}
}

func TestPrincipalGroupsClaims(t *testing.T) {
	s := mustParse(t, `
@id("support") permit(principal in Group::"support", action, resource);
@id("dept") permit(principal, action, resource) when { principal.hasTag("dept") && principal.getTag("dept") == "ops" };
@id("level") permit(principal, action, resource) when { principal.hasTag("level") && principal.getTag("level") == "3" };
@id("stdio") permit(principal == User::"stdio", action, resource) when { principal.transport == "stdio" && principal.authentication == "none" };
`)
	req := toolReq("a", "t", "")
	req.Principal.Groups = []string{"eng", "support"}
	if d := s.Authorize(req); !d.Allow || !slices.Equal(d.Policies, []string{"support"}) {
		t.Fatalf("group: %+v", d)
	}
	req.Principal = &Principal{Name: "b", Claims: map[string]any{"dept": "ops", "level": 3.0}}
	if d := s.Authorize(req); !d.Allow || !slices.Equal(d.Policies, []string{"dept", "level"}) {
		t.Fatalf("claims: %+v", d)
	}
	req.Principal = nil
	if d := s.Authorize(req); !d.Allow || !slices.Equal(d.Policies, []string{"stdio"}) {
		t.Fatalf("stdio: %+v", d)
	}
}

func TestTargetAttributes(t *testing.T) {
	s := mustParse(t, `
@id("ro") permit(principal, action == Action::"call_tool", resource in Plugin::"fs") when { resource.annotations.readOnlyHint && resource.declared == "read" && resource.plugin == "fs" };
@id("tmpl") permit(principal, action == Action::"read_resource", resource) when { resource.template == "file:///{path}" && resource.digest == "sha256:ab" };
@id("t") permit(principal, action == Action::"get_prompt", resource) when { resource.trust == "" && context.protocol == "2025-11-25" && context.session == "s1" };
`)
	req := toolReq("a", "fs_read", "")
	req.Target.Declared = "read"
	if d := s.Authorize(req); d.Allow {
		t.Fatal("default annotations are not read-only")
	}
	req.Target.Annotations = Annotations{ReadOnly: true}
	if d := s.Authorize(req); !d.Allow {
		t.Fatalf("read-only: %+v", d)
	}
	req.Target.Plugin.Name = "other"
	if d := s.Authorize(req); d.Allow {
		t.Fatal("resource in Plugin ignores the parent")
	}
	rr := Request{Action: ReadResource, Target: Target{Type: TypeResource, Name: "file:///a", Template: "file:///{path}", Plugin: Plugin{Name: "fs", Digest: "sha256:ab"}}}
	if d := s.Authorize(rr); !d.Allow {
		t.Fatalf("resource: %+v", d)
	}
	pr := Request{Action: GetPrompt, Target: Target{Type: TypePrompt, Name: "p"}, Protocol: "2025-11-25", Session: "s1",
		StringArgs: map[string]string{"a": "b"}}
	if d := s.Authorize(pr); !d.Allow {
		t.Fatalf("prompt: %+v", d)
	}
}

func TestContextTime(t *testing.T) {
	s := mustParse(t, `@id("h") permit(principal, action, resource) when { context.hour == 10 && context.weekday == "Monday" && context.time.toTime() == duration("10h") };`)
	if d := s.Authorize(toolReq("a", "t", "")); !d.Allow {
		t.Fatalf("%+v", d)
	}
	req := toolReq("a", "t", "")
	req.Time = monday10.Add(time.Hour)
	if d := s.Authorize(req); d.Allow {
		t.Fatal("11:00 matched 10")
	}
}

func TestToolAnnotations(t *testing.T) {
	f := false
	if a := ToolAnnotations(false, nil, false, nil); a != DefaultAnnotations {
		t.Fatalf("%+v", a)
	}
	if a := ToolAnnotations(true, &f, true, &f); a != (Annotations{ReadOnly: true, Idempotent: true}) {
		t.Fatalf("%+v", a)
	}
}

// TestTargetCacheFollowsChanges: a plugin whose signature changes (a
// reload) is judged on the new one, though its tool's entity is cached.
func TestTargetCacheFollowsChanges(t *testing.T) {
	s := mustParse(t, `permit(principal, action, resource) when { resource.signature == "verified" };`)
	req := toolReq("a", "t", "")
	req.Target.Plugin.Signature = "verified"
	if !s.Authorize(req).Allow {
		t.Fatal("verified denied")
	}
	req.Target.Plugin.Signature = "unsigned"
	if s.Authorize(req).Allow {
		t.Fatal("the cached entity was used for a changed plugin")
	}
}

// TestListable: a list hides what is denied whatever the arguments, and
// shows what some arguments could allow.
func TestListable(t *testing.T) {
	s := mustParse(t, `
@id("base") permit(principal, action, resource);
@id("path") forbid(principal in Group::"support", action, resource == Tool::"fs_read_file") unless { context.arguments has path && context.arguments.path like "/srv/docs/*" };
@id("write") forbid(principal in Group::"support", action, resource == Tool::"fs_write_file");
`)
	req := toolReq("sam", "fs_read_file", `{"path":"/etc/passwd"}`)
	req.Principal.Groups = []string{"support"}
	if s.Authorize(req).Allow || !s.Listable(req) {
		t.Fatal("fs_read_file: the call must be denied and the tool listed")
	}
	req.Target.Name = "fs_write_file"
	if s.Listable(req) {
		t.Fatal("fs_write_file is denied whatever the arguments, yet listed")
	}
	p := mustParse(t, `@id("p") permit(principal, action, resource) when { context.arguments has n && context.arguments.n < 3 };`)
	if !p.Listable(req) {
		t.Fatal("a permit on arguments: hidden")
	}
	q := mustParse(t, `@id("q") permit(principal == User::"alice", action, resource);`)
	if q.Listable(req) {
		t.Fatal("nothing permits sam: listed")
	}
	var none *Set
	if !none.Listable(req) {
		t.Fatal("no policy: hidden")
	}
}

// TestEntityModelDocumented: docs/security.md shows the schema mcpwasm
// generates, as it generates it.
func TestEntityModelDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```cedarschema\n")
	doc, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/security.md has no cedarschema block")
	}
	if want := GenerateSchema(nil).Text; doc != want {
		t.Fatalf("docs/security.md's schema differs from the generated one:\n%s\nwant:\n%s", doc, want)
	}
}

// TestAuthorizeConcurrent: one Set decides from many goroutines (the
// target cache is shared); run with -race.
func TestAuthorizeConcurrent(t *testing.T) {
	s := mustParse(t, hundredPolicies())
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				req := benchRequest()
				req.Target.Name = fmt.Sprintf("fs_tool_%d", (g+i)%50)
				s.Authorize(req)
				s.Listable(req)
			}
		}()
	}
	wg.Wait()
}
