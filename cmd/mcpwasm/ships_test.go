package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductLinksNoHarness: the mcpwasm command links neither the
// benchmark harness (cmd/mcpwasm-bench has it) nor sigstore-go (the nested
// module sigstore/ has it, for the binaries sigstore/build.sh builds).
func TestProductLinksNoHarness(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/mcpwasm/mcpwasm/internal/bench" || strings.HasPrefix(pkg, "github.com/sigstore/") {
			t.Errorf("the product binary links %s", pkg)
		}
	}
}
