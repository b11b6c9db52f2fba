package isolate

import (
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/netguard"
)

// A worker's confinement opens each port its grants reach, once, and 53
// for DNS over TCP when there is any; no grant, no port.
func TestGrantPorts(t *testing.T) {
	if got := grantPorts(nil); len(got) != 0 {
		t.Errorf("no grant: %v", got)
	}
	got := grantPorts([]netguard.Grant{{Schemes: []string{"http", "https"}}, {Ports: []int{8080, 443}}})
	if want := []uint16{80, 443, 8080, 53}; !slices.Equal(got, want) {
		t.Errorf("ports %v, want %v", got, want)
	}
}
