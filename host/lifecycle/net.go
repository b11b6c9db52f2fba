package lifecycle

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/netguard"
)

// netOptions turns a plugin's [[plugin.net]] tables and network limits
// into its guard's options, checking each grant now so that a bad one is
// reported with the config file and its table number rather than at load.
func netOptions(p config.Plugin) (netguard.Options, error) {
	var o netguard.Options
	for i, g := range p.Net {
		if len(g.Hosts) == 0 {
			return o, fmt.Errorf("[[plugin.net]] #%d: hosts is required", i+1)
		}
		gr := netguard.Grant{Hosts: g.Hosts, Ports: g.Ports, Schemes: g.Schemes, Methods: g.Methods}
		if err := netguard.CheckGrant(gr); err != nil {
			return o, fmt.Errorf("[[plugin.net]] #%d: %w", i+1, err)
		}
		o.Grants = append(o.Grants, gr)
	}
	o.Limits.MaxRequests = p.NetMaxRequests
	o.Limits.MaxResponse = int64(p.NetMaxResponse.Bytes)
	return o, nil
}
