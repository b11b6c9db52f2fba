package wasmbin

// Data segment coalescing. Standard Go (GOOS=wasip1) emits one active data
// segment per run of non-zero bytes, tens of thousands of them, and wazero
// evaluates each segment's offset expression, allocating, on every
// instantiation; mcpwasm instantiates once per call. Preflight therefore
// merges segments that lie close together into one, filling the gaps with
// zeros, when, and only when, the merged module is provably equivalent at
// instantiation. The argument, condition by condition:
//
//   - No instruction names a data segment. The instructions that name
//     one by index are memory.init and data.drop (GC's array.new_data and
//     array.init_data, which Inspect refuses anyway). Without them the
//     segments' number and order are invisible to code. A module without
//     a data count section has none: the spec's binary format lets the
//     data count be absent only if dataidx(code) is empty, so that a
//     single-pass validator can check those indices before it reaches the
//     data section (wazero enforces it: "memory.init requires data count
//     section"). A module with one (AssemblyScript and TinyGo emit it
//     whenever bulk memory is on, used or not) qualifies when every
//     function body decodes (code.go) and holds neither instruction
//     (noSegmentNamed); its count is then rewritten to the merged number,
//     which is the only thing the data count section says. (The "name"
//     custom section may name data segments; wazero does not read those
//     names.)
//
//   - Every segment active on memory 0 with an offset of exactly i32.const N
//     end, and exactly one memory, defined (Preflight refuses imported ones)
//     and 32-bit. Each segment then writes its bytes at the constant offset
//     uint32(N) of a memory nobody else can see yet; a passive segment, a
//     global.get or extended-const offset, or a memory64 memory leaves the
//     section as it is. N is decoded by the spec's strict rules, which
//     accept nothing wazero refuses, so no module wazero refuses becomes
//     one it accepts.
//
//   - No two non-empty segments share a byte (checked after sorting by
//     offset). Then every byte is written by at most one segment and the
//     order of the writes does not matter.
//
// Contents. A merged segment spans a run of segments, sorted by offset,
// whose gaps are each below maxDataGap. Its bytes are the run's bytes with
// zeros in the gaps. A new memory is all zeros (wazero allocates it zeroed,
// as the spec requires, and nothing writes memory before the data segments
// do), and no segment outside the run writes into a gap, since it would
// then overlap the run's neighbours around that gap. So on success every
// byte of memory ends as it did.
//
// Failure. wazero fails instantiation if any active segment ends beyond the
// memory's initial size: offset + length > size. A merged segment starts at
// its first segment's offset and ends at the largest end in its run, so it
// fails exactly when one of its segments does, for any memory size; the
// merged module fails exactly when the original does. Only the error's
// segment index may differ. The partial writes that precede a failure are
// not observable: the memory is the module's own, and the instance is never
// returned.
//
// Cost. The gap bound is below 4 KiB, the smallest page size of the
// systems wazero runs on, so no single gap covers a whole page: zero fill
// between two non-empty segments touches no page they leave untouched.
// Copying a few KiB of zeros costs about what wazero spends per segment
// (evaluating its offset expression, with allocations), and real gaps are
// far smaller: standard Go splits its data at runs of about 8 zeros or
// more, and in an SDK build all but 9 of its 40,187 gaps are 64 bytes or
// less (the largest is 3,533). Against hostile input, the zeros added in
// total may not exceed the data section's own size or 64 KiB, whichever is
// more, or nothing is merged: the output stays within twice the input plus
// 64 KiB. The decision is all or nothing, so Preflight of its own output
// changes nothing more.

import (
	"cmp"
	"math"
	"slices"
)

// maxDataGap bounds the zero fill between two merged segments: a gap of
// maxDataGap bytes or more starts a new segment.
const maxDataGap = 4096

// minFillBudget is the zero fill always allowed in total; beyond it, the
// fill may not exceed the data section's size.
const minFillBudget = 64 << 10

// dataSeg is an active data segment: its offset in memory, and where its
// bytes are in the module.
type dataSeg struct {
	off        uint32
	start, end int // its bytes, wasm[start:end]
}

func (s dataSeg) memEnd() uint64 { return uint64(s.off) + uint64(s.end-s.start) }

// sleb32 reads a signed LEB128 of at most 32 bits by the spec's rules: at
// most 5 bytes, and the unused bits of a fifth byte a copy of the sign bit.
func (r *reader) sleb32() (int32, bool) {
	var v uint32
	for i := uint(0); i < 5; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, false
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 != 0 {
			continue
		}
		if i == 4 {
			// bits 4 to 6 of the fifth byte must equal bit 3, the sign
			if high := c & 0x70; (c&0x08 != 0 && high != 0x70) || (c&0x08 == 0 && high != 0) {
				return 0, false
			}
		} else if c&0x40 != 0 {
			v |= ^uint32(0) << (7 * (i + 1)) // sign extension
		}
		return int32(v), true
	}
	return 0, false
}

// appendS32 appends v as a minimal signed LEB128.
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// readDataSegs reads the segments of a data section whose body is r, if
// every one is active on memory 0 with an i32.const offset. flagged says
// whether any uses the explicit memory index encoding (flags 2).
func readDataSegs(r *reader) (segs []dataSeg, flagged, ok bool) {
	n, err := r.count(5) // flags, i32.const, value, end, length: a byte each at least
	if err != nil {
		return nil, false, false
	}
	segs = make([]dataSeg, 0, n)
	for range n {
		flags, err := r.u32()
		if err != nil {
			return nil, false, false
		}
		switch flags {
		case 0:
		case 2:
			if mem, err := r.u32(); err != nil || mem != 0 {
				return nil, false, false
			}
			flagged = true
		default:
			return nil, false, false // passive (1) or invalid
		}
		if op, err := r.byte(); err != nil || op != 0x41 { // i32.const
			return nil, false, false
		}
		off, ok := r.sleb32()
		if !ok {
			return nil, false, false
		}
		if op, err := r.byte(); err != nil || op != 0x0B { // end
			return nil, false, false
		}
		size, err := r.u32()
		if err != nil || uint64(size) > uint64(r.left()) {
			return nil, false, false
		}
		segs = append(segs, dataSeg{off: uint32(off), start: r.off, end: r.off + int(size)})
		r.off += int(size)
	}
	return segs, flagged, r.left() == 0
}

// coalesceData returns the contents of a data section equivalent to the
// one at sec in wasm, with fewer segments (n of them), or ok false if the
// conditions above do not all hold or nothing would merge. named says
// some instruction may name a segment; memories are the module's defined
// memories (Preflight has refused imported ones).
func coalesceData(wasm []byte, sec span, named bool, memories []Limits) (body []byte, n int, ok bool) {
	if named || sec == (span{}) || len(memories) != 1 || memories[0].Is64 {
		return nil, 0, false
	}
	r := &reader{b: wasm[:sec.end], off: sec.start + 1}
	if _, err := r.u32(); err != nil { // the section size, checked by parse
		return nil, 0, false
	}
	bodyLen := r.left()
	segs, flagged, ok := readDataSegs(r)
	if !ok || len(segs) < 2 {
		return nil, 0, false
	}
	slices.SortFunc(segs, func(a, b dataSeg) int {
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.end-a.start, b.end-b.start))
	})

	// runs[i] is the index in segs of the first segment of merged segment i.
	var runs []int
	var fill uint64
	runStart, runEnd := uint64(segs[0].off), segs[0].memEnd()
	runs = append(runs, 0)
	for i := 1; i < len(segs); i++ {
		s := segs[i]
		off := uint64(s.off)
		if off < runEnd {
			return nil, 0, false // overlap (or an empty segment inside another)
		}
		if gap := off - runEnd; gap < maxDataGap {
			fill += gap
		} else {
			runs = append(runs, i)
			runStart = off
		}
		runEnd = s.memEnd()
		if runEnd-runStart > math.MaxUint32 {
			return nil, 0, false // a segment's length is a u32
		}
	}
	if len(runs) == len(segs) || fill > max(uint64(bodyLen), minFillBudget) {
		return nil, 0, false
	}

	// The payload and the zero fill, and room for the headers (append makes
	// more if there are many runs with longer headers than the originals').
	body = make([]byte, 0, uint64(bodyLen)+fill+16)
	body = appendU64(body, uint64(len(runs)))
	for k, first := range runs {
		last := len(segs)
		if k+1 < len(runs) {
			last = runs[k+1]
		}
		run := segs[first:last]
		// Flags 2 if the original used them, so that a runtime without
		// bulk memory still refuses the module.
		if flagged {
			body = append(body, 2, 0)
		} else {
			body = append(body, 0)
		}
		base := run[0].off
		body = append(body, 0x41)
		body = appendS32(body, int32(base))
		body = append(body, 0x0B)
		body = appendU64(body, run[len(run)-1].memEnd()-uint64(base))
		pos := uint64(base)
		for _, s := range run {
			body = appendZeros(body, int(uint64(s.off)-pos))
			body = append(body, wasm[s.start:s.end]...)
			pos = s.memEnd()
		}
	}
	if uint64(len(body)) > math.MaxUint32 {
		return nil, 0, false
	}
	return body, len(runs), true
}

// appendZeros appends n zero bytes.
func appendZeros(b []byte, n int) []byte {
	b = slices.Grow(b, n)
	b = b[:len(b)+n]
	clear(b[len(b)-n:])
	return b
}

// noSegmentNamed reports whether the code section at code (zero: none)
// decodes, every body of it, with no memory.init and no data.drop. A body
// the decoder does not know counts as naming one.
func noSegmentNamed(wasm []byte, code span) bool {
	if code == (span{}) {
		return true
	}
	r := &reader{b: wasm[:code.end], off: code.start + 1}
	if _, err := r.u32(); err != nil { // the section size, checked by parse
		return false
	}
	n, err := r.count(2)
	if err != nil {
		return false
	}
	var buf []instr
	for range n {
		size, err := r.u32()
		if err != nil || uint64(size) > uint64(r.left()) {
			return false
		}
		body := wasm[r.off : r.off+int(size)]
		r.off += int(size)
		fb, err := decodeBody(body, buf)
		if err != nil {
			return false
		}
		buf = fb.ins
		for _, in := range fb.ins {
			if body[in.start] != 0xFC {
				continue
			}
			sr := &reader{b: body, off: in.start + 1}
			if sub, err := sr.u32(); err != nil || sub == 8 || sub == 9 { // memory.init, data.drop
				return false
			}
		}
	}
	return r.left() == 0
}
