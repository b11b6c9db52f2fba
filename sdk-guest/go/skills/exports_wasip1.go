//go:build wasip1

package skills

import "github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"

// The skills export: only plugins that import this package have it.

//go:wasmexport list_skills
func exportListSkills() int32 {
	return guest.Serve(func([]byte) ([]byte, error) { return listJSON() })
}
