// Package bytesize writes a byte count for a message, the way the config
// file writes sizes: in the largest binary unit that divides it exactly
// ("4MiB"), else in bytes ("1000 bytes"). A size so written parses back
// (config.ParseSize).
package bytesize

import "fmt"

// Format writes n bytes in the largest unit that divides it.
func Format(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
