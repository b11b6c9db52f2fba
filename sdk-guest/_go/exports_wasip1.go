//go:build wasip1

package mcpwasm

import "github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"

// The module's exports. Extism calls each as () -> i32 with its input and
// output in the kernel. The optional exports (resources, prompts,
// completion) live in the packages of those names, so only plugins that
// import them export them.

//go:wasmexport mcpwasm_abi_version
func exportABIVersion() int32 { return ABIVersion }

//go:wasmexport list_tools
func exportListTools() int32 {
	return guest.Serve(func([]byte) ([]byte, error) { return listToolsJSON() })
}

//go:wasmexport call_tool
func exportCallTool() int32 { return guest.Serve(callTool) }
