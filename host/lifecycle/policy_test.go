package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestReloadPolicyKeepsSetInForce: a reload puts a valid policy set in
// force; a broken one is logged with its file and line and the set in
// force stays; a config without [server.policy] lifts the policies.
func TestReloadPolicyKeepsSetInForce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("p.cedar", "permit(principal, action, resource);\n")
	write("mcpwasm.toml", "[server.policy]\nfiles = [\"p.cedar\"]\n\n[[plugin]]\npath = \""+fixture.Path(t, "echo")+"\"\n")
	cfgPath := filepath.Join(dir, "mcpwasm.toml")
	h := serveInProcess(t, cfgPath)
	var set *policy.Set
	calls := 0
	h.r.setPolicy = func(s *policy.Set) { set, calls = s, calls+1 }

	write("p.cedar", "permit(principal, action, resource);\nforbid(principal, action, resource) when { context.hour == 25 };\n")
	h.r.reloadConfig(context.Background(), "test")
	if calls != 1 || set.Len() != 2 {
		t.Fatalf("valid set: %d calls, %d policies\n%s", calls, set.Len(), h.logs)
	}
	write("p.cedar", "permit(principal, action, resource);\nforbid(principal, action, resource) when { context.hour == };\n")
	h.r.reloadConfig(context.Background(), "test")
	if calls != 1 || set.Len() != 2 {
		t.Fatalf("broken set replaced the one in force: %d calls", calls)
	}
	h.wantLog("policies not reloaded", "p.cedar:2:")
	write("mcpwasm.toml", "[[plugin]]\npath = \""+fixture.Path(t, "echo")+"\"\n")
	h.r.reloadConfig(context.Background(), "test")
	if calls != 2 || set != nil {
		t.Fatalf("policies not lifted: %d calls, %v", calls, set)
	}
	// The policy files are watched, the config's folder's and others.
	in := interests{policy: policyFiles(h.r.cfg)}
	if len(in.policy) != 0 {
		t.Fatal(in.policy)
	}
	cfg := *h.r.cfg
	cfg.Server.Policy.Files = []string{filepath.Join(dir, "p.cedar"), "/elsewhere/q.cedar"} // as config.Load leaves them
	cfg.Server.Policy.Schema = filepath.Join(dir, "s.cedarschema")
	got := policyFiles(&cfg)
	for _, want := range []string{filepath.Join(dir, "p.cedar"), "/elsewhere/q.cedar", filepath.Join(dir, "s.cedarschema")} {
		if !got[want] {
			t.Errorf("%s not watched: %v", want, got)
		}
	}
	if s := strings.Join(restartOnly(h.r.cfg, &cfg), ","); s != "" {
		t.Errorf("a policy change is reported as needing a restart: %s", s)
	}
}

// TestSignatureFacts: the policy sees the signature state the fetcher
// verified for a remote plugin; a local file is unsigned.
func TestSignatureFacts(t *testing.T) {
	f := NewFetcher(context.Background(), RemoteOptions{}, &config.Config{}, nil)
	f.results["oci://r/a:1"] = &source.Result{Signature: source.Signature{State: "verified"}}
	f.results["https://h/b.wasm"] = &source.Result{Signature: source.Signature{State: "none (https: pinned by its sha256)"}}
	facts := signatureFacts(f)
	for src, want := range map[string]string{"oci://r/a:1": "verified", "https://h/b.wasm": "none", "/plugins/c.wasm": ""} {
		if got := facts.Signature(src); got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
}
