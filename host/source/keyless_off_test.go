package source

import (
	"strings"
	"testing"
)

// TestKeylessNotBuilt: without the sigstore module's verifier a keyless
// policy is refused when it is read, saying how to get it, not at the
// first signature.
func TestKeylessNotBuilt(t *testing.T) {
	_, err := NewPolicy("required", nil, &Keyless{TrustedRoot: "root.json", Identity: "a@example.com", Issuer: "https://accounts.google.com"})
	if err == nil || !strings.Contains(err.Error(), "sigstore/build.sh") {
		t.Fatalf("%v", err)
	}
}
