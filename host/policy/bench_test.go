package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// hundredPolicies is a set of 100 policies of the shapes the examples use:
// per-tool forbids on argument values, group and user permits, scope and
// annotation rules.
func hundredPolicies() string {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "@id(\"docs-%d\")\n@reason(\"tool %d reads under /srv/docs/%d only\")\nforbid(principal in Group::\"g%d\", action == Action::\"call_tool\", resource == Tool::\"fs_tool_%d\")\n"+
			"unless { context.arguments has path && context.arguments.path like \"/srv/docs/%d/*\" && !(context.arguments.path like \"*..*\") };\n", i, i, i, i%7, i, i)
	}
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "@id(\"user-%d\")\npermit(principal == User::\"user%d\", action, resource in Plugin::\"p%d\");\n", i, i, i%5)
	}
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "@id(\"scope-%d\")\nforbid(principal, action, resource in Plugin::\"p%d\") when { principal.authentication != \"none\" } unless { principal.scopes.contains(\"s%d\") };\n", i, i, i)
	}
	for i := 0; i < 9; i++ {
		fmt.Fprintf(&b, "@id(\"hours-%d\")\nforbid(principal in Group::\"h%d\", action == Action::\"call_tool\", resource) when { resource.annotations.destructiveHint && (context.hour < 9 || context.hour >= 17) };\n", i, i)
	}
	b.WriteString("@id(\"base\")\npermit(principal in Group::\"staff\", action, resource);\n")
	return b.String()
}

func benchRequest() Request {
	return Request{
		Principal: &Principal{Name: "user3", Scopes: []string{"mcp", "s1", "s3"}, Groups: []string{"staff", "g3"}, Auth: "jwt", Transport: "http",
			Issuer: "https://login.example", Claims: map[string]any{"dept": "ops"}},
		Action: CallTool,
		Target: Target{Type: TypeTool, Name: "fs_tool_3", Declared: "tool_3", Annotations: Annotations{ReadOnly: true},
			Plugin: Plugin{Name: "p3", Source: "/srv/plugins/p3.wasm", Digest: "sha256:00", Signature: "unsigned"}},
		Arguments: []byte(`{"path":"/srv/docs/3/readme.md","limit":20,"recursive":false}`),
		Time:      monday10,
		Protocol:  "2025-11-25",
		Session:   "abc",
	}
}

// BenchmarkAuthorize100: one decision against 100 policies, its arguments
// parsed and its entities built. Reports the median (p50-ns) and p99 of
// the individual decisions beside the mean.
func BenchmarkAuthorize100(b *testing.B) {
	s := mustParse(b, hundredPolicies())
	if s.Len() != 100 {
		b.Fatalf("%d policies", s.Len())
	}
	req := benchRequest()
	if d := s.Authorize(req); !d.Allow || len(d.Errors) > 0 {
		b.Fatalf("%+v", d)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s.Authorize(req)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkAuthorizeNone: no policy configured (a nil Set).
func BenchmarkAuthorizeNone(b *testing.B) {
	var s *Set
	req := benchRequest()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !s.Authorize(req).Allow {
			b.Fatal("denied")
		}
	}
}
