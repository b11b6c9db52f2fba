package policy

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// examples are the policies shipped in docs/policies.
const examples = "../../docs/policies"

func exampleSet(t *testing.T, files ...string) *Set {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join(examples, f))
	}
	s, err := Load(paths, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fsTools is a plugin like plugins/fs, for the generated schema.
var fsTools = []ToolArgs{
	{Name: "fs_read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "fs_write_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
}

// TestExamplesMatchGeneratedSchema: every shipped policy passes validate's
// check against the schema mcpwasm generates.
func TestExamplesMatchGeneratedSchema(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(examples, "*.cedar"))
	if len(files) < 6 {
		t.Fatalf("examples: %v", files)
	}
	s, err := Load(files, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := GenerateSchema(fsTools).Schema()
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Check(s); err != nil {
		t.Fatal(err)
	}
}

type exampleCase struct {
	name  string
	req   Request
	allow bool
	by    string // the deciding policy of a denial
}

func runCases(t *testing.T, s *Set, cases []exampleCase) {
	t.Helper()
	for _, c := range cases {
		d := s.Authorize(c.req)
		if d.Allow != c.allow {
			t.Errorf("%s: allow = %v, want %v (%+v)", c.name, d.Allow, c.allow, d)
		}
		if !c.allow && c.by != "" && (len(d.Policies) != 1 || d.Policies[0] != c.by || d.Reason == "") {
			t.Errorf("%s: decided by %v (%q), want %s with its reason", c.name, d.Policies, d.Reason, c.by)
		}
	}
}

func call(p *Principal, tool string, args string, a *Annotations, sig string, at time.Time) Request {
	if a == nil {
		a = &DefaultAnnotations
	}
	return Request{Principal: p, Action: CallTool, Arguments: json.RawMessage(args), Time: at,
		Target: Target{Type: TypeTool, Name: tool, Annotations: *a, Plugin: Plugin{Name: "fs", Signature: sig}}}
}

func TestExampleSupportDocs(t *testing.T) {
	s := exampleSet(t, "base.cedar", "support-docs.cedar")
	support := &Principal{Name: "sam", Groups: []string{"support"}, Auth: "jwt", Transport: "http"}
	other := &Principal{Name: "olga", Auth: "jwt", Transport: "http"}
	runCases(t, s, []exampleCase{
		{"support under /srv/docs", call(support, "fs_read_file", `{"path":"/srv/docs/a.md"}`, nil, "", monday10), true, ""},
		{"support elsewhere", call(support, "fs_read_file", `{"path":"/etc/passwd"}`, nil, "", monday10), false, "support-docs-only"},
		{"support climbing out", call(support, "fs_read_file", `{"path":"/srv/docs/../../etc/passwd"}`, nil, "", monday10), false, "support-docs-only"},
		{"support without a path", call(support, "fs_read_file", `{}`, nil, "", monday10), false, "support-docs-only"},
		{"support, another tool", call(support, "fs_list", `{"path":"/etc"}`, nil, "", monday10), true, ""},
		{"not support", call(other, "fs_read_file", `{"path":"/etc/passwd"}`, nil, "", monday10), true, ""},
	})
}

func TestExampleWorkingHours(t *testing.T) {
	s := exampleSet(t, "base.cedar", "working-hours.cedar")
	p := &Principal{Name: "a"}
	ro := &Annotations{ReadOnly: true, OpenWorld: true}
	safe := &Annotations{}
	saturday := time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC)
	evening := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	runCases(t, s, []exampleCase{
		{"destructive, Monday 10:00", call(p, "rm", `{}`, nil, "", monday10), true, ""},
		{"destructive, Monday 17:00", call(p, "rm", `{}`, nil, "", evening), false, "destructive-working-hours"},
		{"destructive, Saturday", call(p, "rm", `{}`, nil, "", saturday), false, "destructive-working-hours"},
		{"read-only, Saturday", call(p, "ls", `{}`, ro, "", saturday), true, ""},
		{"destructiveHint false, evening", call(p, "add", `{}`, safe, "", evening), true, ""},
		{"in another zone: 17:00 UTC is 09:00 in Los Angeles", call(p, "rm", `{}`, nil, "",
			evening.In(time.FixedZone("PST", -8*3600))), true, ""},
	})
}

func TestExampleIssuerReadOnly(t *testing.T) {
	s := exampleSet(t, "base.cedar", "issuer-read-only.cedar")
	partner := &Principal{Name: "p", Issuer: "https://login.partner.example", Auth: "jwt"}
	own := &Principal{Name: "o", Issuer: "https://login.example", Auth: "jwt"}
	ro := &Annotations{ReadOnly: true}
	runCases(t, s, []exampleCase{
		{"partner, read-only", call(partner, "ls", `{}`, ro, "", monday10), true, ""},
		{"partner, writer", call(partner, "rm", `{}`, nil, "", monday10), false, "partner-read-only"},
		{"own issuer, writer", call(own, "rm", `{}`, nil, "", monday10), true, ""},
	})
}

func TestExampleUnsignedAdmin(t *testing.T) {
	s := exampleSet(t, "base.cedar", "unsigned-admin.cedar")
	admin := &Principal{Name: "root", Scopes: []string{"admin"}, Auth: "static"}
	user := &Principal{Name: "u", Scopes: []string{"read"}, Auth: "static"}
	runCases(t, s, []exampleCase{
		{"user, verified", call(user, "t", `{}`, nil, "verified", monday10), true, ""},
		{"user, unsigned", call(user, "t", `{}`, nil, "unsigned", monday10), false, "unsigned-admin-only"},
		{"user, not checked", call(user, "t", `{}`, nil, "not checked", monday10), false, "unsigned-admin-only"},
		{"admin, unsigned", call(admin, "t", `{}`, nil, "unsigned", monday10), true, ""},
	})
}

func TestExampleScopes(t *testing.T) {
	s := exampleSet(t, "base.cedar", "scopes.cedar")
	tok := func(scopes ...string) *Principal {
		return &Principal{Name: "t", Scopes: scopes, Auth: "static", Transport: "http"}
	}
	stdio := &Principal{Name: StdioName, Auth: "none", Transport: "stdio"}
	runCases(t, s, []exampleCase{
		{"no mcp scope", call(tok("files"), "fs_read_file", `{}`, nil, "", monday10), false, "scope-required"},
		{"mcp, no files", call(tok("mcp"), "fs_read_file", `{}`, nil, "", monday10), false, "scope-plugin-fs"},
		{"mcp files, read", call(tok("mcp", "files"), "fs_read_file", `{}`, nil, "", monday10), true, ""},
		{"mcp files, write", call(tok("mcp", "files"), "fs_write_file", `{}`, nil, "", monday10), false, "scope-tool-fs_write_file"},
		{"all three, write", call(tok("mcp", "files", "files.write"), "fs_write_file", `{}`, nil, "", monday10), true, ""},
		{"stdio", call(stdio, "fs_write_file", `{}`, nil, "", monday10), true, ""},
	})
}
