package wasmbin

import (
	"strings"
	"testing"
)

// tablesModule is a module with n funcref tables of min elements each,
// with no maximum when max < 0.
func tablesModule(n int, min uint64, max int64) []byte {
	body := leb(uint64(n))
	for i := 0; i < n; i++ {
		if max < 0 {
			body = append(append(body, 0x70, 0), leb(min)...)
		} else {
			body = append(append(append(body, 0x70, 1), leb(min)...), leb(uint64(max))...)
		}
	}
	return module(sec(secTable, body))
}

// Thousands of tables, each within the per-table cap, must not add up past
// the bound on all tables together: 4,000 tables of 100,000 elements took a
// server to 3.2 GB under an 8 MiB memory limit.
func TestPreflightBoundsAllTablesTogether(t *testing.T) {
	p := Policy{MaxTableElements: 100_000, MaxTotalTableElements: 500_000}

	// Minimums over the total: refused, naming the count.
	_, _, err := Preflight(tablesModule(4000, 100_000, -1), p)
	if err == nil || !strings.Contains(err.Error(), "4000 tables") || !strings.Contains(err.Error(), "500000") {
		t.Fatalf("4000 full tables: err = %v", err)
	}

	// Unbounded tables that could each grow to the per-table cap: their
	// maximums are cut so that they add up to the total at most.
	for _, c := range []struct {
		n        int
		min      uint64
		max      int64
		wantEach uint64
	}{
		{4000, 1, -1, 125},      // 500000/4000
		{64, 10, 100_000, 7812}, // 10 + (500000-640)/64, rounded down
		{3, 5, -1, 100_000},     // fits: the per-table cap alone
		{2, 7, 9, 9},            // declared maximums that fit are kept
	} {
		_, m, err := Preflight(tablesModule(c.n, c.min, c.max), p)
		if err != nil {
			t.Fatalf("%d tables: %v", c.n, err)
		}
		var sum uint64
		for i, tb := range m.Tables {
			if !tb.HasMax || tb.Max < tb.Min {
				t.Fatalf("%d tables: table %d = %+v", c.n, i, tb)
			}
			sum += tb.Max
		}
		if sum > p.MaxTotalTableElements || m.Tables[0].Max != c.wantEach {
			t.Errorf("%d tables (min %d, max %d): first max %d (want %d), sum %d (limit %d)",
				c.n, c.min, c.max, m.Tables[0].Max, c.wantEach, sum, p.MaxTotalTableElements)
		}
	}
}

// Uneven needs: a table asking for little extra keeps it, the rest share.
func TestPreflightSharesTableRoom(t *testing.T) {
	body := append(leb(3), 0x70, 1, 0, 10) // [0,10]
	body = append(body, 0x70, 0, 0)        // [0,-]
	body = append(body, 0x70, 0, 50)       // [50,-]
	_, m, err := Preflight(module(sec(secTable, body)), Policy{MaxTableElements: 1000, MaxTotalTableElements: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got := []uint64{m.Tables[0].Max, m.Tables[1].Max, m.Tables[2].Max}
	// room 950: table 0 takes 10; 940 split in two: 470 each.
	if got[0] != 10 || got[1] != 470 || got[2] != 520 {
		t.Fatalf("maximums %v, want [10 470 520]", got)
	}
}
