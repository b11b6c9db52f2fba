package wasmbin

import "fmt"

// How a function is instrumented.
const (
	modeLeaf   = iota // no check: bounded by its size, paid for by its callers
	modeGlobal        // one check at entry, on the fuel global
	modeLocal         // fuel in a local: checks at entry and at every loop header
)

// funcBody is a decoded function body.
type funcBody struct {
	locals  []byte  // the locals vector entries, as encoded
	nLocals uint64  // declared locals
	nDecls  uint64  // locals vector entries
	ins     []instr // the instructions, ending with the function's end
	code    []byte  // the body the instruction offsets refer to
}

func decodeBody(body []byte, buf []instr) (funcBody, error) {
	r := &reader{b: body}
	fb := funcBody{code: body}
	n, err := r.count(2)
	if err != nil {
		return fb, err
	}
	start := r.off
	for i := 0; i < n; i++ {
		c, err := r.u32()
		if err != nil {
			return fb, err
		}
		if err := r.valType(); err != nil {
			return fb, err
		}
		fb.nLocals += uint64(c)
	}
	fb.locals, fb.nDecls = body[start:r.off], uint64(n)
	fb.ins, err = decodeExpr(r, buf[:0])
	if err == nil && r.left() != 0 {
		err = fmt.Errorf("%d bytes after the end of the body", r.left())
	}
	return fb, err
}

// A bulk operation charges its length, shifted right: 16 bytes of memory or
// 2 table elements a unit.
const (
	bulkMemoryShift = 4
	bulkTableShift  = 1
)

// cost is what an instruction charges its enclosing loop or function.
func (mi *moduleInfo) cost(in instr) int32 {
	switch in.kind {
	case kindCall, kindReturnCall:
		if in.idx < mi.impFuncs {
			return 1 + importCost
		}
		if d := in.idx - mi.impFuncs; d < uint32(len(mi.leafCost)) && mi.leafCost[d] >= 0 {
			return 1 + mi.leafCost[d]
		}
	case kindCallIndirect, kindReturnCallIndirect:
		return 1 + indirectCost
	}
	return 1
}

// classify finds the functions left unchecked and their cost: those with
// no loop and no indirect call, whose direct callees are all unchecked too
// (so no recursion), and whose cost with their callees' is at most
// leafMax. It iterates to a fixed point, from the callees up.
func (mi *moduleInfo) classify(bodies [][]byte) error {
	n := len(bodies)
	mi.leafCost = make([]int32, n)
	self := make([]int32, n)       // own cost, calls to defined functions counted as 1
	callees := make([][]uint32, n) // defined functions called directly
	var buf []instr
	for i, b := range bodies {
		mi.leafCost[i] = -1
		fb, err := decodeBody(b, buf)
		if err != nil {
			return fmt.Errorf("function %d: %w", mi.impFuncs+uint32(i), err)
		}
		buf = fb.ins
		var c int32
		for _, in := range fb.ins {
			switch {
			case in.kind == kindLoop || in.kind == kindCallIndirect || in.kind == kindReturnCallIndirect || in.kind == kindBulk:
				c = leafMax + 1
			case (in.kind == kindCall || in.kind == kindReturnCall) && in.idx >= mi.impFuncs:
				if d := in.idx - mi.impFuncs; d < uint32(n) && len(callees[i]) < leafMax {
					callees[i] = append(callees[i], d)
					c++
				} else {
					c = leafMax + 1
				}
			case in.kind == kindCall || in.kind == kindReturnCall:
				c += 1 + importCost
			default:
				c++
			}
			if c > leafMax {
				break
			}
		}
		if fb.nLocals+uint64(mi.typeParams[mi.funcTypes[i]]) > leafLocals {
			c = leafMax + 1 // its frame would be large: count it against the stack
		}
		self[i] = c
	}
	for changed := true; changed; {
		changed = false
		for i := range bodies {
			if mi.leafCost[i] >= 0 || self[i] > leafMax {
				continue
			}
			c := self[i]
			for _, d := range callees[i] {
				if mi.leafCost[d] < 0 {
					c = leafMax + 1
					break
				}
				c += mi.leafCost[d]
			}
			if c <= leafMax {
				mi.leafCost[i], changed = c, true
			}
		}
	}
	return nil
}

// weights returns the fuel charged at a function's entry (what it runs
// outside its loops) and at each loop header, by instruction position.
func (mi *moduleInfo) weights(ins []instr) (entry int32, loops map[int]int32) {
	loops = map[int]int32{}
	acc := []int32{0}  // accumulators: the function, then each open loop
	stack := []int{}   // per open block: index into acc, -1 if not a loop
	owner := []int{-1} // instruction index of each accumulator's loop
	for i, in := range ins {
		acc[len(acc)-1] = satAdd(acc[len(acc)-1], mi.cost(in))
		switch in.kind {
		case kindBlock:
			stack = append(stack, -1)
		case kindLoop:
			stack = append(stack, len(acc))
			acc = append(acc, 0)
			owner = append(owner, i)
		case kindEnd:
			if len(stack) == 0 {
				continue
			}
			if top := stack[len(stack)-1]; top >= 0 {
				loops[owner[top]] = max(acc[top], 1)
				acc, owner = acc[:top], owner[:top]
			}
			stack = stack[:len(stack)-1]
		}
	}
	return max(acc[0], 1), loops
}

// maxWeight bounds any one charge, so that fuel plus a charge never
// overflows an i32.
const maxWeight = 1 << 24

func satAdd(a, b int32) int32 {
	return int32(min(int64(a)+int64(b), maxWeight))
}

// rewriteBody appends the instrumented body of defined function i to out.
func (mi *moduleInfo) rewriteBody(out, body []byte, i uint32, buf []instr) ([]byte, []instr, error) {
	fb, err := decodeBody(body, buf)
	if err != nil {
		return out, buf, err
	}
	buf = fb.ins
	mode := modeLeaf
	if mi.leafCost[i] < 0 {
		mode = modeGlobal
		for _, in := range fb.ins {
			if in.kind == kindLoop {
				mode = modeLocal
				break
			}
		}
	}
	grows := false
	for _, in := range fb.ins {
		grows = grows || in.kind == kindMemGrow
	}
	grows = grows && mi.opts.GrowFailed != ""
	bulk := false
	for _, in := range fb.ins {
		bulk = bulk || in.kind == kindBulk
	}
	needTmp := grows || bulk
	typ := mi.funcTypes[i]
	fuelLocal := uint64(mi.typeParams[typ]) + fb.nLocals
	if mode != modeLeaf && fuelLocal >= 50000 {
		return out, buf, fmt.Errorf("too many locals (%d) to add the fuel local", fuelLocal)
	}

	// locals: the fuel's (unless a leaf), the depth at entry (if it counts
	// its frame), then the grow result's
	counted := mode != modeLeaf && mi.opts.StackLimit > 0
	added := uint64(0)
	if mode != modeLeaf {
		added++
	}
	if counted {
		added++
	}
	if needTmp {
		added++
	}
	out = appendU64(out, fb.nDecls+min(added, 1))
	out = append(out, fb.locals...)
	if added > 0 {
		out = append(out, byte(added), 0x7F)
	}
	e := emitter{out: out, mi: mi, local: fuelLocal, saved: fuelLocal + 1, tmp: fuelLocal + added - 1}

	// A function that calls others also counts its frame against the
	// stack limit, and (like one that keeps fuel in a local) catches its
	// returns in a block, to undo that at its one exit.
	frame := int32(0)
	if counted {
		frame = frameSize(uint64(mi.typeParams[typ]) + fb.nLocals + added + uint64(mi.maxHeight(fb)))
	}
	wrap := mode == modeLocal || frame > 0
	entry, loops := mi.weights(fb.ins)
	switch mode {
	case modeGlobal:
		e.entryGlobal(entry)
	case modeLocal:
		e.entryLocal(entry)
	}
	if frame > 0 {
		e.pushFrame(frame)
	}
	if wrap {
		e.out = append(e.out, 0x02) // the block that catches returns
		e.out = append(e.out, mi.blockTypeFor(mi.types[typ])...)
	}

	last := len(fb.ins) - 1
	for k, in := range fb.ins {
		raw := fb.code[in.start:in.end]
		sync := mode == modeLocal && mi.spendsFuel(in)
		switch in.kind {
		case kindBlock:
			e.push(1)
			e.out = append(e.out, raw...)
		case kindLoop:
			if mode != modeLocal {
				e.push(1)
				e.out = append(e.out, raw...)
			} else if bt := raw[1:]; mi.blockParams(bt) == 0 {
				e.loopOutlined(bt, loops[k])
			} else {
				e.push(1)
				e.out = append(e.out, raw...)
				e.loopCheck(loops[k])
			}
		case kindEnd:
			switch {
			case k == last && wrap:
				e.out = append(e.out, 0x0B) // end of the catch block
				if mode == modeLocal {
					e.store()
				}
				if frame > 0 {
					e.popFrame()
				}
			case k < last && e.top() == outlinedLabels:
				e.endOutlined(e.weights[len(e.weights)-1])
				e.labels = e.labels[:len(e.labels)-1]
				e.weights = e.weights[:len(e.weights)-1]
				continue
			case k < last:
				e.labels = e.labels[:len(e.labels)-1]
			}
			e.out = append(e.out, raw...)
		case kindReturn:
			if wrap {
				e.op(0x0C, uint64(e.depth(len(e.labels)))) // br to the catch block
			} else {
				e.out = append(e.out, raw...)
			}
		case kindBr:
			e.op(raw[0], uint64(e.depth(int(in.idx))))
		case kindBrTable:
			if err := e.brTable(raw); err != nil {
				return out, buf, err
			}
		case kindCall, kindReturnCall, kindRefFunc:
			if sync || (in.kind == kindReturnCall && mode == modeLocal) {
				e.store()
			}
			if in.kind == kindReturnCall && frame > 0 {
				e.popFrame()
			}
			e.op(raw[0], uint64(mi.target(in.idx)))
			if sync && in.kind == kindCall {
				e.load()
			}
		case kindBulk:
			e.chargeLength(mode, int32(in.idx))
			e.out = append(e.out, raw...)
		case kindMemGrow:
			e.out = append(e.out, raw...)
			if grows {
				e.growCheck()
			}
		case kindCallIndirect, kindReturnCallIndirect:
			if sync || (in.kind == kindReturnCallIndirect && mode == modeLocal) {
				e.store()
			}
			if in.kind == kindReturnCallIndirect && frame > 0 {
				e.popFrame()
			}
			e.out = append(e.out, raw...)
			if sync && in.kind == kindCallIndirect {
				e.load()
			}
		default:
			e.out = append(e.out, raw...)
		}
	}
	return e.out, buf, nil
}

// blockParams is the number of parameters of block type bt.
func (mi *moduleInfo) blockParams(bt []byte) int {
	if len(bt) == 0 || bt[0] == 0x40 || bt[0]&0x40 != 0 {
		return 0 // empty, or a value type (all are negative s33)
	}
	r := &reader{b: bt}
	if t, err := r.u32(); err == nil && int(t) < len(mi.typeParams) {
		return mi.typeParams[t]
	}
	return -1
}

// spendsFuel says whether an instruction may run instrumented code that
// spends the fuel global, so a function holding fuel in a local must write
// it back first.
func (mi *moduleInfo) spendsFuel(in instr) bool {
	switch in.kind {
	case kindCallIndirect, kindReturnCallIndirect:
		return true
	case kindCall, kindReturnCall:
		d := in.idx - mi.impFuncs
		return in.idx >= mi.impFuncs && (d >= uint32(len(mi.leafCost)) || mi.leafCost[d] < 0)
	}
	return false
}
