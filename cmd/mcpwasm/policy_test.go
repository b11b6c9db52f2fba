package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestPolicyTestCommand: `mcpwasm policy test` decides one request, with
// the fs plugin loaded for its tools, and names the deciding policy, its
// file and line and its reason; exit 0 allowed, 1 denied.
func TestPolicyTestCommand(t *testing.T) {
	fs := fixture.Plugin(t, "fs")
	docs := filepath.Join(fixture.Root(), "docs", "policies")
	args := []string{"policy", "test", "--cache-dir", t.TempDir(), "--policy", filepath.Join(docs, "base.cedar"),
		"--policy", filepath.Join(docs, "support-docs.cedar"), "--principal", "sam", "--group", "support", "--tool", "fs_read_file", fs}
	out, errOut, code := runCLI(t, append(args, "--args", `{"path":"/etc/passwd"}`)...)
	if code != 1 || !strings.HasPrefix(out, `deny   call_tool Tool::"fs_read_file" for User::"sam"`) ||
		!strings.Contains(out, "policy support-docs-only (") || !strings.Contains(out, "support-docs.cedar:3)") ||
		!strings.Contains(out, "reason the support group reads files under /srv/docs only") {
		t.Fatalf("deny: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, append(args, "--args", `{"path":"/srv/docs/guide.md"}`)...)
	if code != 0 || !strings.HasPrefix(out, "allow") || !strings.Contains(out, "policy base-permit") {
		t.Fatalf("allow: exit %d\n%s%s", code, out, errOut)
	}
	// The tool's annotations come from the plugin: fs_read_file is read-only,
	// so the working-hours policy lets it through on a Sunday night.
	wh := []string{"policy", "test", "--cache-dir", t.TempDir(), "--policy", filepath.Join(docs, "base.cedar"),
		"--policy", filepath.Join(docs, "working-hours.cedar"), "--principal", "a", "--time", "2026-11-29T23:00:00Z", fs}
	if out, errOut, code = runCLI(t, append(wh, "--tool", "fs_read_file")...); code != 0 {
		t.Fatalf("read-only tool denied: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = runCLI(t, append(wh, "--tool", "fs_write_file")...); code != 1 || !strings.Contains(out, "destructive-working-hours") {
		t.Fatalf("destructive tool: exit %d\n%s%s", code, out, errOut)
	}
	// Without plugins, the target is described by flags.
	out, errOut, code = runCLI(t, "policy", "test", "--policy", filepath.Join(docs, "base.cedar"), "--policy", filepath.Join(docs, "unsigned-admin.cedar"),
		"--principal", "u", "--tool", "x_y", "--plugin", "x", "--signature", "unsigned")
	if code != 1 || !strings.Contains(out, "unsigned-admin-only") {
		t.Fatalf("unsigned: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, "policy", "test", "--policy", filepath.Join(docs, "base.cedar"), "--principal", "u", "--tool", "x_y")
	if code != 2 || !strings.Contains(errOut, "--plugin") {
		t.Fatalf("no target: exit %d\n%s", code, errOut)
	}
}

// TestPolicyTestBrokenFile: a policy file that does not parse is named
// with its line.
func TestPolicyTestBrokenFile(t *testing.T) {
	dir := t.TempDir()
	bad := fixture.File(t, dir, "bad.cedar", "permit(principal, action, resource);\n\nforbid(principal, action, resource) when { context.hour > };\n")
	_, errOut, code := runCLI(t, "policy", "test", "--policy", bad, "--principal", "u", "--tool", "t", "--plugin", "p")
	if code != 1 || !strings.Contains(errOut, "bad.cedar:3:") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

// TestValidatePolicies: validate checks [server.policy] against the schema
// generated for the plugins it loads: an argument no tool takes, or one
// used without `has`, fails naming the file and line.
func TestValidatePolicies(t *testing.T) {
	fs := fixture.Plugin(t, "fs")
	dir := t.TempDir()
	docs := filepath.Join(fixture.Root(), "docs", "policies")
	cfg := fixture.File(t, dir, "mcpwasm.toml", "[server.policy]\nfiles = [\""+filepath.Join(docs, "base.cedar")+"\", \""+
		filepath.Join(docs, "support-docs.cedar")+"\", \"extra.cedar\"]\n\n[[plugin]]\npath = \""+fs+"\"\n")
	fixture.File(t, dir, "extra.cedar", `permit(principal, action, resource) when { context.arguments has offset && context.arguments.offset > 10 };`)
	out, errOut, code := runCLI(t, "validate", "--cache-dir", t.TempDir(), "--config", cfg)
	if code != 0 || !strings.Contains(out, "ok  3 policies match the schema") {
		t.Fatalf("valid: exit %d\n%s%s", code, out, errOut)
	}
	fixture.File(t, dir, "extra.cedar", "\n\npermit(principal, action, resource) when { context.arguments.nope == 1 };")
	out, errOut, code = runCLI(t, "validate", "--cache-dir", t.TempDir(), "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "extra.cedar:3") || !strings.Contains(errOut, "nope") {
		t.Fatalf("invalid: exit %d\n%s%s", code, out, errOut)
	}
	// With the operator's own schema (here one typing "nope"), validate
	// checks against it instead.
	schema, _, _ := runCLI(t, "policy", "schema", "--cache-dir", t.TempDir(), fs)
	fixture.File(t, dir, "own.cedarschema", strings.Replace(schema, "type Arguments = {\n", "type Arguments = {\n  \"nope\": Long,\n", 1))
	os.WriteFile(cfg, []byte("[server.policy]\nfiles = [\"extra.cedar\"]\nschema = \"own.cedarschema\"\n\n[[plugin]]\npath = \""+fs+"\"\n"), 0o600)
	out, errOut, code = runCLI(t, "validate", "--cache-dir", t.TempDir(), "--config", cfg)
	if code != 0 || !strings.Contains(out, "ok  1 policies match "+filepath.Join(dir, "own.cedarschema")) {
		t.Fatalf("own schema: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPolicySchemaCommand: `mcpwasm policy schema` prints the schema
// generated for the plugins, their arguments typed.
func TestPolicySchemaCommand(t *testing.T) {
	out, errOut, code := runCLI(t, "policy", "schema", "--cache-dir", t.TempDir(), fixture.Plugin(t, "fs"))
	if code != 0 || !strings.Contains(out, `"path"?: String`) || !strings.Contains(out, "action call_tool appliesTo") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
