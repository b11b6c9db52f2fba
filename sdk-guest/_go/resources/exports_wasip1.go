//go:build wasip1

package resources

import "github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"

// The resource exports: only plugins that import this package have them.

//go:wasmexport list_resources
func exportListResources() int32 {
	return guest.Serve(func([]byte) ([]byte, error) { return listResources() })
}

//go:wasmexport list_resource_templates
func exportListResourceTemplates() int32 {
	return guest.Serve(func([]byte) ([]byte, error) { return listTemplates() })
}

//go:wasmexport read_resource
func exportReadResource() int32 { return guest.Serve(read) }
