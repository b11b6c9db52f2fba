package config

import (
	"testing"
	"time"
)

// The [server] HTTP bounds decode; a negative count is refused.
func TestServerHTTPKeys(t *testing.T) {
	c, err := Parse([]byte(`[server]
allowed_hosts = ["mcp.example.com", "mcp.example.com:8443"]
max_sessions = 10
session_timeout = "5m"
max_connections = 64
max_body = "1MiB"
max_body_in_flight = "16MiB"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server
	if len(s.AllowedHosts) != 2 || s.MaxSessions != 10 || s.SessionTimeout.Duration != 5*time.Minute ||
		s.MaxConnections != 64 || s.MaxBody.Bytes != 1<<20 || s.MaxBodyInFlight.Bytes != 16<<20 {
		t.Fatalf("decoded %+v", s)
	}
	if _, err := Parse([]byte("[server]\nmax_sessions = -1\n")); err == nil {
		t.Fatal("max_sessions = -1 accepted")
	}
}
