package wasmbin

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// FuzzDataMerge builds modules from a compact description, so that most
// inputs reach the merge: each 4 bytes of spec are a segment (offset from
// the first 18 bits, then its kind, then its length), and mem gives the
// memory's pages (low 2 bits) and whether there is a data count section
// (bit 7; with no code, no instruction names a segment, so it merges too). Whatever Preflight does, instantiation must not change; and it
// must merge whenever the conditions hold and a gap is small enough.
func FuzzDataMerge(f *testing.F) {
	f.Add([]byte{16, 0, 0, 5, 22, 0, 0, 6, 0x1b, 0x10, 0, 5}, uint8(1))
	f.Add([]byte{0xfe, 0xff, 0, 2, 0xf0, 0xff, 0, 4, 0, 0, 0, 1}, uint8(1))
	f.Add([]byte{0, 0, 0, 3, 2, 0, 0, 1}, uint8(2))
	f.Add([]byte{0, 0, 0x14, 3, 9, 0, 0, 1}, uint8(0x81))
	f.Fuzz(func(t *testing.T, spec []byte, mem uint8) {
		type iv struct{ off, end uint64 }
		var segs []seg
		var ivs []iv
		plain := mem&3 != 0
		for i := 0; i+4 <= len(spec) && i < 4*64; i += 4 {
			off := int32(uint32(spec[i]) | uint32(spec[i+1])<<8 | uint32(spec[i+2]&3)<<16)
			n := int(spec[i+3] & 0x3f)
			data := make([]byte, n)
			for j := range data {
				data[j] = byte(i*31 + j)
			}
			s := active(off, string(data))
			switch kind := spec[i+2] >> 2 & 7; kind {
			case 5:
				s.head = append([]byte{2, 0}, i32Off(off)...)
			case 6:
				s.head, plain = []byte{1}, false
			case 7:
				s.head, plain = append(append([]byte{0, 0x41}, appendS32(nil, off)...), 0x41, 0, 0x6A, 0x0B), false
			}
			segs = append(segs, s)
			ivs = append(ivs, iv{uint64(uint32(off)), uint64(uint32(off)) + uint64(n)})
		}
		parts := [][]byte{memSec(uint64(mem & 3))}
		if mem&3 == 0 {
			parts = nil
		}
		if mem&0x80 != 0 {
			parts = append(parts, sec(secDataCount, leb(uint64(len(segs)))))
		}
		in := module(append(parts, dataSec(segs...))...)
		out, _, err := Preflight(in, policy(1000))
		if err != nil {
			t.Fatal(err)
		}
		merged := !bytes.Equal(in, out)
		// The oracle: sort, look for overlaps and small gaps.
		slices.SortFunc(ivs, func(a, b iv) int { return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.end, b.end)) })
		small, fill := false, uint64(0)
		for i := 1; i < len(ivs); i++ {
			if ivs[i].off < ivs[i-1].end {
				plain = false
			} else if gap := ivs[i].off - ivs[i-1].end; gap < maxDataGap {
				small, fill = true, fill+gap
			}
		}
		if want := plain && small && fill <= minFillBudget; merged != want {
			t.Fatalf("merged %v, want %v (%v)", merged, want, ivs)
		}
		if !merged {
			return
		}
		okIn, _, _, _ := wazeroCompiles(in)
		okOut, _, _, p := wazeroCompiles(out)
		if okIn != okOut || p != nil {
			t.Fatalf("wazero compiles the original: %v, the patched module: %v (%v)", okIn, okOut, p)
		}
		if _, err := sameInstantiation(in, out, 0); err != nil && !errors.Is(err, errInconclusive) {
			t.Fatal(err)
		}
	})
}

// BenchmarkPreflightGo is the load-time cost of Preflight on standard Go's
// output, which merges 40,000 data segments.
func BenchmarkPreflightGo(b *testing.B) {
	in, err := os.ReadFile(fixture.Path(b, "sdk_go"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := Preflight(in, policy(100_000)); err != nil {
			b.Fatal(err)
		}
	}
}
