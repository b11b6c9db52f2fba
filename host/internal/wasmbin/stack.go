package wasmbin

// maxHeight returns an upper bound of the operand stack's height in a
// function body: the values the engine may have to keep in the function's
// frame across a call. Each instruction's effect on the height is taken
// exactly where it matters (constants, locals, loads and stores, numeric
// operators, calls, blocks), and as no more than the truth elsewhere (the
// vector and atomic operators that pop more than they push count as
// pushing what they pop). After a branch, return or unreachable the height
// falls back to its block's base; the code after it never runs.
func (mi *moduleInfo) maxHeight(fb funcBody) int {
	type frame struct{ base, params, results int }
	var frames []frame
	h, peak := 0, 0
	reset := func() {
		if len(frames) > 0 {
			f := frames[len(frames)-1]
			h = f.base + f.params
		} else {
			h = 0
		}
	}
	for _, in := range fb.ins {
		op := fb.code[in.start]
		switch in.kind {
		case kindBlock, kindLoop:
			if op == 0x04 { // if pops its condition
				h--
			}
			p, r := mi.blockArity(fb.code[in.start+1 : in.end])
			frames = append(frames, frame{base: h - p, params: p, results: r})
		case kindElse:
			reset()
		case kindEnd:
			if len(frames) == 0 {
				return peak
			}
			f := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			h = f.base + f.results
		case kindReturn, kindReturnCall, kindReturnCallIndirect, kindBrTable:
			reset()
		case kindBr:
			if op == 0x0C {
				reset()
			} else {
				h-- // br_if's condition
			}
		case kindCall, kindCallIndirect:
			p, r := mi.callArity(in, fb.code)
			h += r - p
		default:
			if op == 0x00 { // unreachable
				reset()
			} else {
				h += netEffect(op, in.idx)
			}
		}
		h = max(h, 0)
		peak = max(peak, h)
	}
	return peak
}

// blockArity is a block type's parameter and result counts.
func (mi *moduleInfo) blockArity(bt []byte) (params, results int) {
	if len(bt) == 0 || bt[0] == 0x40 {
		return 0, 0
	}
	if bt[0]&0x40 != 0 {
		return 0, 1 // a value type
	}
	t, err := (&reader{b: bt}).u32()
	if err != nil || int(t) >= len(mi.types) {
		return 0, 0
	}
	return mi.typeParams[t], len(mi.types[t])
}

// callArity is what a call pops (its arguments, and the table index of an
// indirect call) and pushes.
func (mi *moduleInfo) callArity(in instr, code []byte) (pops, pushes int) {
	var t uint32
	switch {
	case in.kind == kindCallIndirect:
		t, _ = (&reader{b: code, off: in.start + 1}).u32()
		pops = 1
	case in.idx < mi.impFuncs && int(in.idx) < len(mi.importTypes):
		t = mi.importTypes[in.idx]
	case in.idx >= mi.impFuncs && int(in.idx-mi.impFuncs) < len(mi.funcTypes):
		t = mi.funcTypes[in.idx-mi.impFuncs]
	default:
		return 0, 1
	}
	if int(t) >= len(mi.types) {
		return 0, 1
	}
	return pops + mi.typeParams[t], len(mi.types[t])
}

// netEffect is an instruction's effect on the stack height, or an upper
// bound of it.
func netEffect(op byte, sub uint32) int {
	switch {
	case op == 0x1A || op == 0x21 || op == 0x24: // drop, local.set, global.set
		return -1
	case op == 0x1B || op == 0x1C || op == 0x26: // select, table.set
		return -2
	case op == 0x20 || op == 0x23 || op == 0x3F || (op >= 0x41 && op <= 0x44) || op == 0xD0 || op == 0xD2:
		return 1 // local.get, global.get, memory.size, constants, ref.null, ref.func
	case op >= 0x36 && op <= 0x3E: // stores
		return -2
	case (op >= 0x46 && op <= 0x4F) || (op >= 0x51 && op <= 0x66) || // comparisons
		(op >= 0x6A && op <= 0x78) || (op >= 0x7C && op <= 0x8A) || // integer binary
		(op >= 0x92 && op <= 0x98) || (op >= 0xA0 && op <= 0xA6): // float binary
		return -1
	case op == 0xFC:
		switch {
		case sub == 8 || sub == 10 || sub == 11 || sub == 12 || sub == 14 || sub == 17:
			return -3 // bulk memory and table operations
		case sub == 15:
			return -1 // table.grow
		case sub == 16:
			return 1 // table.size
		}
	case op == 0xFD:
		switch {
		case sub == 0x0C:
			return 1 // v128.const
		case sub == 0x0B || (sub >= 0x58 && sub <= 0x5B) || sub == 0x52:
			return -2 // v128.store, store lanes, bitselect
		case sub == 0x0D || sub == 0x0E || (sub >= 0x54 && sub <= 0x57):
			return -1 // shuffle, swizzle, load lanes
		}
	}
	return 0
}
