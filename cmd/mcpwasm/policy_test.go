package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeForbidden is server.CodeForbidden, as a client sees it.
const codeForbidden = -31403

// policyDocs is a folder with docs/a.txt and other.txt, and policy files.
func policyDocs(t *testing.T) (root string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "a.txt"), []byte("in the docs"), 0o644)
	os.WriteFile(filepath.Join(root, "other.txt"), []byte("elsewhere"), 0o644)
	return root
}

// readFile calls fs_read_file; err is the JSON-RPC error of a refusal.
func readFile(ctx context.Context, cs *mcp.ClientSession, path string) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": path}})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("isError: %+v", res.Content)
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return "", fmt.Errorf("content %T", res.Content[0])
	}
	return tc.Text, nil
}

// wantDenied checks err is CodeForbidden naming the policy and its reason.
func wantDenied(t *testing.T, what string, err error, policyID, reason string) {
	t.Helper()
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != codeForbidden || !strings.Contains(re.Message, `"`+policyID+`"`) || !strings.Contains(re.Message, reason) {
		t.Fatalf("%s: %v, want error %d naming %q and %q", what, err, codeForbidden, policyID, reason)
	}
}

const argPolicy = `@id("base") permit(principal, action, resource);

@id("docs-only")
@reason("fs_read_file reads under docs only")
forbid (principal %s, action == Action::"call_tool", resource == Tool::"fs_read_file")
unless { context.arguments has path && context.arguments.path like "%s/docs/*" };

@id("no-destructive")
@reason("destructive tools are off")
forbid (principal, action == Action::"call_tool", resource)
when { resource.annotations.destructiveHint && !resource.annotations.readOnlyHint };
`

// TestPolicyStdio: over stdio (principal User::"stdio"), a call is denied
// by its argument value (context.arguments.path like ...) and by the
// tool's annotation, with -31403 naming the policy and its @reason; the
// tool denied whatever its arguments is not listed; the allowed call runs.
func TestPolicyStdio(t *testing.T) {
	root := policyDocs(t)
	cfg := filepath.Join(root, "mcpwasm.toml")
	os.WriteFile(filepath.Join(root, "p.cedar"), []byte(fmt.Sprintf(argPolicy, "", root)), 0o600)
	os.WriteFile(cfg, []byte("[server.policy]\nfiles = [\"p.cedar\"]\n\n[[plugin]]\npath = \""+fixture.Plugin(t, "fs")+"\"\n[[plugin.fs]]\npath = \""+root+"\"\n"), 0o600)
	cs, stderr := stdioClient(t, "--config", cfg)
	ctx := context.Background()
	if text, err := readFile(ctx, cs, filepath.Join(root, "docs", "a.txt")); err != nil || !strings.Contains(text, "in the docs") {
		t.Fatalf("allowed read: %q %v\n%s", text, err, stderr)
	}
	_, err := readFile(ctx, cs, filepath.Join(root, "other.txt"))
	wantDenied(t, "read outside docs", err, "docs-only", "fs_read_file reads under docs only")
	_, err = readFile(ctx, cs, filepath.Join(root, "docs", "..", "other.txt"))
	if err == nil {
		// like "<root>/docs/*" matches the "..": the example in docs/policies refuses it too.
		t.Log("docs/../ passes a bare like pattern, as docs/security.md warns")
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_write_file", Arguments: map[string]any{"path": filepath.Join(root, "x"), "content": "x"}})
	wantDenied(t, "write", err, "no-destructive", "destructive tools are off")
	if names := toolNames(t, cs, stderr); strings.Contains(names, "fs_write_file") || !strings.Contains(names, "fs_read_file") {
		t.Fatalf("tools/list: %s", names)
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Fatal("the denied write ran")
	}
}

// TestPolicyHTTPTwoTokens: over HTTP, the same policy for one token of
// two: bob's read outside docs is denied, alice's is served.
func TestPolicyHTTPTwoTokens(t *testing.T) {
	root := policyDocs(t)
	cfg := filepath.Join(root, "mcpwasm.toml")
	os.WriteFile(filepath.Join(root, "tokens"), []byte("alice 0123456789abcdef0123\nbob fedcba9876543210fedc\n"), 0o600)
	os.WriteFile(filepath.Join(root, "p.cedar"), []byte(fmt.Sprintf(argPolicy, `== User::"bob"`, root)), 0o600)
	os.WriteFile(cfg, []byte("[server.auth]\ntokens_file = \"tokens\"\n\n[server.policy]\nfiles = [\"p.cedar\"]\n\n[[plugin]]\npath = \""+
		fixture.Plugin(t, "fs")+"\"\n[[plugin.fs]]\npath = \""+root+"\"\n"), 0o600)
	auditLog := filepath.Join(root, "audit.log")
	url := httpServe(t, "--config", cfg, "--audit-log", auditLog)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := func(token string) *mcp.ClientSession { return mcptest.Connect(t, url, token) }
	alice, bob := client("0123456789abcdef0123"), client("fedcba9876543210fedc")
	other := filepath.Join(root, "other.txt")
	if text, err := readFile(ctx, alice, other); err != nil || !strings.Contains(text, "elsewhere") {
		t.Fatalf("alice: %q %v", text, err)
	}
	_, err := readFile(ctx, bob, other)
	wantDenied(t, "bob outside docs", err, "docs-only", "under docs only")
	var re *jsonrpc.Error
	if errors.As(err, &re) && !strings.Contains(re.Message, `"bob"`) {
		t.Fatalf("the message does not name the principal: %s", re.Message)
	}
	if text, err := readFile(ctx, bob, filepath.Join(root, "docs", "a.txt")); err != nil || !strings.Contains(text, "in the docs") {
		t.Fatalf("bob in docs: %q %v", text, err)
	}
	// The decisions are in the audit log, with the deciding policy, and
	// counted by decision.
	data, _ := os.ReadFile(auditLog)
	if !strings.Contains(string(data), `"principal":"bob","plugin":"fs","tool":"fs_read_file","method":"tools/call","decision":"deny","policies":["docs-only"]`) ||
		!strings.Contains(string(data), `"principal":"alice","plugin":"fs","tool":"fs_read_file","method":"tools/call","decision":"allow","policies":["base"]`) {
		t.Fatalf("audit log:\n%s", data)
	}
	_, page := get(t, strings.TrimSuffix(url, "/mcp")+"/metrics", "0123456789abcdef0123")
	if !strings.Contains(page, `mcpwasm_policy_decisions_total{decision="deny"} 1`) || !strings.Contains(page, `mcpwasm_policy_decisions_total{decision="allow"} 2`) {
		t.Fatalf("metrics:\n%s", page)
	}
}

// TestPolicyHotReload: a policy tightened while a client is connected
// denies its next call and hides the tool from its next list; a broken
// policy file then keeps the tightened set in force, the log naming the
// file and line.
func TestPolicyHotReload(t *testing.T) {
	root := policyDocs(t)
	cfg := filepath.Join(root, "mcpwasm.toml")
	pfile := filepath.Join(root, "p.cedar")
	os.WriteFile(pfile, []byte("@id(\"base\") permit(principal, action, resource);\n"), 0o600)
	os.WriteFile(cfg, []byte("[server.policy]\nfiles = [\"p.cedar\"]\n\n[[plugin]]\npath = \""+fixture.Plugin(t, "fs")+"\"\n[[plugin.fs]]\npath = \""+root+"\"\n"), 0o600)
	rs := startReload(t, nil, nil, "--config", cfg)
	ctx := context.Background()
	stat := func() error {
		_, err := rs.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_stat", Arguments: map[string]any{"path": filepath.Join(root, "other.txt")}})
		return err
	}
	if err := stat(); err != nil || !strings.Contains(rs.tools(), "fs_stat") {
		t.Fatalf("before: %v %s", err, rs.tools())
	}
	os.WriteFile(pfile, []byte("@id(\"base\") permit(principal, action, resource);\n\n@id(\"no-stat\")\n@reason(\"stat is off\")\nforbid(principal, action, resource == Tool::\"fs_stat\");\n"), 0o600)
	rs.eventually("the tightened policy in force", func() bool { return strings.Contains(rs.stderr.String(), "policy file changed") })
	wantDenied(t, "stat after the reload", stat(), "no-stat", "stat is off")
	if names := rs.tools(); strings.Contains(names, "fs_stat") || !strings.Contains(names, "fs_read_file") {
		t.Fatalf("tools/list after the reload: %s", names)
	}
	os.WriteFile(pfile, []byte("@id(\"base\") permit(principal, action, resource);\n\nforbid(principal, action, resource) when { context.hour == };\n"), 0o600)
	rs.eventually("the broken file reported", func() bool {
		return strings.Contains(rs.stderr.String(), "policies not reloaded") && strings.Contains(rs.stderr.String(), "p.cedar:3:")
	})
	wantDenied(t, "stat after the broken file", stat(), "no-stat", "stat is off")
	if _, err := readFile(ctx, rs.cs, filepath.Join(root, "other.txt")); err != nil {
		t.Fatalf("the set in force still allows the rest: %v", err)
	}
}

// TestPolicyBrokenAtStart: serve does not start on a policy file that does
// not parse, naming its file and line.
func TestPolicyBrokenAtStart(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.cedar"), []byte("permit(principal, action, resource);\nforbid(principal, action resource);\n"), 0o600)
	cfg := fixture.Config(t, dir, "[server.policy]\nfiles = [\"p.cedar\"]\n")
	_, errOut, code := runCLI(t, "serve", "--cache-dir", t.TempDir(), "--config", cfg, fixture.Path(t, "echo"))
	if code != 2 || !strings.Contains(errOut, filepath.Join(dir, "p.cedar")+":2:") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

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
