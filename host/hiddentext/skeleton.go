package hiddentext

import (
	"sort"

	"github.com/mtibben/confusables"
)

// Skeleton is the Unicode TR39 skeleton of s (§4, Confusable Detection):
// NFD, each character mapped by the confusables table, NFD again. Two
// strings with one skeleton look alike ("paypal" and "pаypal" with a
// Cyrillic а; "l00kup" and "lOOkup"). The table is
// github.com/mtibben/confusables's, generated from Unicode 13.0's
// confusables.txt (RATIONALE.md says why this module).
func Skeleton(s string) string { return confusables.Skeleton(s) }

// Confusion is a name that looks like another one that is not the same.
type Confusion struct {
	// Name is the later name, Like the one it looks like.
	Name, Like string
	// Skeleton is what both reduce to.
	Skeleton string
}

// Confusable returns the names that share a skeleton with an earlier,
// different name of the list (names are taken in the order given; equal
// names are a collision, not a confusion, and are left to the caller).
func Confusable(names []string) []Confusion {
	first := make(map[string]string, len(names))
	var out []Confusion
	for _, n := range names {
		sk := Skeleton(n)
		if prev, ok := first[sk]; ok {
			if prev != n {
				out = append(out, Confusion{Name: n, Like: prev, Skeleton: sk})
			}
			continue
		}
		first[sk] = n
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
