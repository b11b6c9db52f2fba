package httpserve_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/servertest"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
)

// A refused token's reason can carry what the client wrote (a JWT's kid,
// quoted in "key not found"); it reaches WWW-Authenticate, the log and the
// audit log clipped, so a 40 KB kid does not make a 40 KB header and audit
// line on every guess.
func TestAuthRefusalReasonClipped(t *testing.T) {
	_, v := jwtIssuer(t)
	rec := &servertest.Events{}
	srv := servertest.Audited(t, rec)
	url := servertest.ServeHTTP(t, srv, httpserve.Options{Access: httpserve.AccessOptions{Verifier: v.Verify}}) + "/mcp"
	enc := base64.RawURLEncoding.EncodeToString
	kid := strings.Repeat("k", 40<<10)
	token := enc([]byte(`{"alg":"RS256","typ":"JWT","kid":"`+kid+`"}`)) + "." + enc([]byte(`{"sub":"x"}`)) + "." + enc([]byte("sig"))
	code, challenge, _ := postInit(t, url, token)
	if code != http.StatusUnauthorized {
		t.Fatalf("%d, want 401", code)
	}
	d := rec.Denials(audit.DenyAuth)
	if len(d) != 1 {
		t.Fatalf("audit %+v", d)
	}
	if len(challenge) > 1024 || len(d[0].Reason) > 512 {
		t.Fatalf("WWW-Authenticate is %d bytes and the audited reason %d, want at most 1024 and 512: %.200s", len(challenge), len(d[0].Reason), d[0].Reason)
	}
	if !strings.Contains(d[0].Reason, "kkkk") {
		t.Fatalf("the reason lost its start: %.200s", d[0].Reason)
	}
}
