package config

import (
	"strings"
	"testing"
)

// [server] admin and [server.audit] decode; arguments default to off; an
// unknown key in [server.audit] is an error naming its line.
func TestServerOpsKeys(t *testing.T) {
	c, err := Parse([]byte("[server]\nadmin = \":9090\"\n\n[server.audit]\nfile = \"audit.jsonl\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Admin != ":9090" || c.Server.Audit.File != "audit.jsonl" || c.Server.Audit.Arguments {
		t.Fatalf("decoded %+v", c.Server)
	}
	c, err = Parse([]byte("[server.audit]\nfile = \"-\"\narguments = true\n"))
	if err != nil || c.Server.Audit.File != "-" || !c.Server.Audit.Arguments {
		t.Fatalf("decoded %+v, %v", c.Server.Audit, err)
	}
	_, err = Parse([]byte("[server.audit]\nfile = \"-\"\nargs = true\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "args") {
		t.Fatalf("unknown key: %v", err)
	}
}
