package main

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/netguard"
)

// netOptions turns a plugin's [[plugin.net]] tables and network limits
// into its guard's options, checking the grants now so that a bad one is
// reported with the config file rather than at load.
func netOptions(p config.Plugin) (netguard.Options, error) {
	var o netguard.Options
	for i, g := range p.Net {
		if len(g.Hosts) == 0 {
			return o, fmt.Errorf("[[plugin.net]] #%d: hosts is required", i+1)
		}
		o.Grants = append(o.Grants, netguard.Grant{Hosts: g.Hosts, Ports: g.Ports, Schemes: g.Schemes, Methods: g.Methods})
	}
	o.Limits.MaxRequests = p.NetMaxRequests
	o.Limits.MaxResponse = int64(p.NetMaxResponse.Bytes)
	g, err := netguard.New(o)
	if err != nil {
		return o, fmt.Errorf("[[plugin.net]]: %w", err)
	}
	g.Close()
	return o, nil
}
