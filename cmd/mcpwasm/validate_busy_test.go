package main

import (
	"net"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestValidateBusyAddress: validate passed while serve could not start on
// a taken address. A busy http or admin address is now reported as a
// warning naming the address (exit 0: an operator often validates the
// config of the server that holds it); a free one says nothing.
func TestValidateBusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()
	write := fileWriter(t, t.TempDir())
	plugin := "[[plugin]]\npath = \"" + fixture.Path(t, "echo") + "\"\n"
	for _, c := range []struct {
		name, config string
		warn         bool
	}{
		{"http busy", "[server]\nhttp = \"" + busy + "\"\n" + plugin, true},
		{"admin busy", "[server]\nadmin = \"" + busy + "\"\n" + plugin, true},
		{"free", "[server]\nhttp = \"" + freeAddr + "\"\n" + plugin, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := write(strings.ReplaceAll(c.name, " ", "_")+".toml", c.config)
			_, errOut, code := runCLI(t, "validate", "--config", cfg)
			if code != 0 {
				t.Fatalf("exit %d, want 0:\n%s", code, errOut)
			}
			warned := strings.Contains(errOut, "warning:") && strings.Contains(errOut, "in use")
			if warned != c.warn {
				t.Fatalf("warned about a busy address: %v, want %v:\n%s", warned, c.warn, errOut)
			}
			if c.warn && !strings.Contains(errOut, busy) {
				t.Fatalf("the warning does not name %s:\n%s", busy, errOut)
			}
		})
	}
}
