//go:build wasip1

package completion

import "github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"

// The completion export: only plugins that import this package have it.

//go:wasmexport complete
func exportComplete() int32 { return guest.Serve(complete) }
