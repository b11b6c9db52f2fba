package wasmbin

import (
	"fmt"
	"slices"
)

// capTables gives every table a maximum of at most limit elements, and the
// tables together at most total (0: no bound on the sum). It refuses a table
// whose minimum exceeds limit, and tables whose minimums add up to more than
// total. When the maximums add up to more than total, the room above the
// minimums is shared out fairly: the tables asking for the least extra get
// all of it, and what is left is split evenly among the others, in binary
// order for the remainder. It reports whether any maximum changed.
//
// wazero allocates a table's minimum at instantiation and grows it up to its
// maximum on table.grow, with no other bound: without a cap on the sum,
// thousands of tables at the per-table cap reach gigabytes.
func capTables(tables []Table, limit, total uint64) (changed bool, err error) {
	var sumMin, sumMax uint64
	want := make([]uint64, len(tables))
	for i, t := range tables {
		if t.Min > limit {
			return false, fmt.Errorf("table %d starts with %d elements, more than the limit of %d", i, t.Min, limit)
		}
		if t.HasMax && t.Max < t.Min {
			return false, fmt.Errorf("table %d has a maximum (%d) below its minimum (%d)", i, t.Max, t.Min)
		}
		want[i] = limit
		if t.HasMax && t.Max < limit {
			want[i] = t.Max
		}
		sumMin += t.Min
		sumMax += want[i]
	}
	if total > 0 && sumMin > total {
		return false, fmt.Errorf("the module's %d tables start with %d elements in all, more than the limit of %d for all tables together",
			len(tables), sumMin, total)
	}
	if total > 0 && sumMax > total {
		order := make([]int, len(tables))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			ea, eb := want[a]-tables[a].Min, want[b]-tables[b].Min
			switch {
			case ea < eb:
				return -1
			case ea > eb:
				return 1
			}
			return 0
		})
		room := total - sumMin
		for k, i := range order {
			share := room / uint64(len(order)-k)
			extra := min(want[i]-tables[i].Min, share)
			want[i] = tables[i].Min + extra
			room -= extra
		}
	}
	for i, t := range tables {
		if !t.HasMax || t.Max != want[i] {
			tables[i].Max, tables[i].HasMax = want[i], true
			changed = true
		}
	}
	return changed, nil
}
