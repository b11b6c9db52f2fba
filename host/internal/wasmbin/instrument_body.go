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

// classify finds the functions left unchecked and their cost.
func (mi *moduleInfo) classify(bodies [][]byte) error {
	mi.leafCost = make([]int32, len(bodies))
	var buf []instr
	for i, b := range bodies {
		fb, err := decodeBody(b, buf)
		if err != nil {
			return fmt.Errorf("function %d: %w", mi.impFuncs+uint32(i), err)
		}
		buf = fb.ins
		var c int32
		for _, in := range fb.ins {
			switch {
			case in.kind == kindLoop || in.kind == kindCallIndirect || in.kind == kindReturnCallIndirect,
				(in.kind == kindCall || in.kind == kindReturnCall) && in.idx >= mi.impFuncs:
				c = leafMax + 1
			case in.kind == kindCall || in.kind == kindReturnCall:
				c += 1 + importCost
			default:
				c++
			}
			if c > leafMax {
				break
			}
		}
		mi.leafCost[i] = c
		if c > leafMax {
			mi.leafCost[i] = -1
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

func satAdd(a, b int32) int32 {
	if s := int64(a) + int64(b); s < 1<<30 {
		return int32(s)
	}
	return 1 << 30
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
	typ := mi.funcTypes[i]
	fuelLocal := uint64(mi.typeParams[typ]) + fb.nLocals
	if mode != modeLeaf && fuelLocal >= 50000 {
		return out, buf, fmt.Errorf("too many locals (%d) to add the fuel local", fuelLocal)
	}

	// locals: the fuel's (unless a leaf), then the grow result's
	added := uint64(0)
	if mode != modeLeaf {
		added++
	}
	if grows {
		added++
	}
	out = appendU64(out, fb.nDecls+min(added, 1))
	out = append(out, fb.locals...)
	if added > 0 {
		out = append(out, byte(added), 0x7F)
	}
	e := emitter{out: out, mi: mi, local: fuelLocal, tmp: fuelLocal + added - 1}

	entry, loops := mi.weights(fb.ins)
	switch mode {
	case modeGlobal:
		e.entryGlobal(entry)
	case modeLocal:
		e.entryLocal(entry)
		e.out = append(e.out, 0x02) // the block that catches returns
		e.out = append(e.out, mi.blockTypeFor(mi.types[typ])...)
	}

	open := 0 // blocks open inside the function (or inside the catch block)
	last := len(fb.ins) - 1
	for k, in := range fb.ins {
		raw := fb.code[in.start:in.end]
		sync := mode == modeLocal && mi.spendsFuel(in)
		switch in.kind {
		case kindBlock:
			open++
			e.out = append(e.out, raw...)
		case kindLoop:
			open++
			e.out = append(e.out, raw...)
			if mode == modeLocal {
				e.loopCheck(loops[k])
			}
		case kindEnd:
			if k == last && mode == modeLocal {
				e.out = append(e.out, 0x0B, 0x20) // end of the catch block; local.get fuel
				e.out = appendU64(e.out, e.local)
				e.out = append(e.out, 0x24) // global.set
				e.out = appendU64(e.out, uint64(mi.fuelGlobal))
			}
			open--
			e.out = append(e.out, raw...)
		case kindReturn:
			if mode == modeLocal {
				e.out = append(e.out, 0x0C) // br to the catch block
				e.out = appendU64(e.out, uint64(open))
			} else {
				e.out = append(e.out, raw...)
			}
		case kindCall, kindReturnCall, kindRefFunc:
			if sync {
				e.store()
			}
			e.out = append(e.out, raw[0])
			e.out = appendU64(e.out, uint64(mi.shift(in.idx)))
			if sync && in.kind == kindCall {
				e.load()
			}
		case kindMemGrow:
			e.out = append(e.out, raw...)
			if grows {
				e.growCheck()
			}
		case kindCallIndirect, kindReturnCallIndirect:
			if sync {
				e.store()
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

// emitter writes the check sequences of one function.
type emitter struct {
	out   []byte
	mi    *moduleInfo
	local uint64 // the fuel local's index
	tmp   uint64 // the grow result's
}

// growCheck calls the grow hook when the memory.grow just emitted failed,
// leaving its result on the stack.
func (e *emitter) growCheck() {
	e.op(0x22, e.tmp)
	e.out = append(e.out, 0x41, 0x7F, 0x46, 0x04, 0x40) // i32.const -1; i32.eq; if
	e.op(0x10, uint64(e.mi.growFunc))
	e.out = append(e.out, 0x0B)
	e.op(0x20, e.tmp)
}

func (e *emitter) op(b byte, imm uint64) {
	e.out = append(e.out, b)
	e.out = appendU64(e.out, imm)
}

// store writes the fuel local back to the global; load reads it again.
func (e *emitter) store() { e.op(0x20, e.local); e.op(0x24, uint64(e.mi.fuelGlobal)) }
func (e *emitter) load()  { e.op(0x23, uint64(e.mi.fuelGlobal)); e.op(0x21, e.local) }

// spend subtracts w from the value on the stack, keeps the result in the
// fuel local, and calls the poll when it is negative. The poll's answer
// goes to the global (global mode) or the local (local mode).
func (e *emitter) spend(w int32, toGlobal bool) {
	e.out = append(e.out, 0x41)
	e.out = appendS32(e.out, w)
	e.out = append(e.out, 0x6B) // i32.sub
	e.op(0x22, e.local)         // local.tee
	if toGlobal {
		e.op(0x24, uint64(e.mi.fuelGlobal))
		e.op(0x20, e.local)
	}
	e.out = append(e.out, 0x41, 0x00, 0x48, 0x04, 0x40) // i32.const 0; i32.lt_s; if
	e.op(0x10, uint64(e.mi.pollFunc))
	if toGlobal {
		e.op(0x24, uint64(e.mi.fuelGlobal))
	} else {
		e.op(0x21, e.local)
	}
	e.out = append(e.out, 0x0B)
}

func (e *emitter) entryGlobal(w int32) { e.op(0x23, uint64(e.mi.fuelGlobal)); e.spend(w, true) }
func (e *emitter) entryLocal(w int32)  { e.op(0x23, uint64(e.mi.fuelGlobal)); e.spend(w, false) }
func (e *emitter) loopCheck(w int32)   { e.op(0x20, e.local); e.spend(w, false) }
