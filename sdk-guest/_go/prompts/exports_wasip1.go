//go:build wasip1

package prompts

import "github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"

// The prompt exports: only plugins that import this package have them.

//go:wasmexport list_prompts
func exportListPrompts() int32 {
	return guest.Serve(func([]byte) ([]byte, error) { return list() })
}

//go:wasmexport get_prompt
func exportGetPrompt() int32 { return guest.Serve(get) }
