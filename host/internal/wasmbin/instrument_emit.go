package wasmbin

// emitter writes the check sequences of one function.
type emitter struct {
	out   []byte
	mi    *moduleInfo
	local uint64 // the fuel local's index
	saved uint64 // the depth at entry's, if the function counts its frame
	tmp   uint64 // the grow result's
	// labels holds, per label open in the original code, how many labels
	// the rewritten code has open up to and including it (each original
	// label stands for outlinedLabels for a loop with its check outlined,
	// else 1): running sums, so a branch depth translates in constant time
	// however deep the blocks nest.
	labels  []int
	weights []int32 // the weight of each open outlined loop
}

// outlinedLabels is the number of labels of an outlined loop (see
// loopOutlined).
const outlinedLabels = 4

// push opens an original label standing for n rewritten ones.
func (e *emitter) push(n int) { e.labels = append(e.labels, e.opened(len(e.labels))+n) }

// opened is the number of rewritten labels open for the first i original
// ones.
func (e *emitter) opened(i int) int {
	if i == 0 {
		return 0
	}
	return e.labels[i-1]
}

// top is the number of rewritten labels the innermost original one stands
// for.
func (e *emitter) top() int { return e.opened(len(e.labels)) - e.opened(len(e.labels)-1) }

// depth translates the branch depth d of the original code.
func (e *emitter) depth(d int) int {
	n := len(e.labels)
	if d >= n {
		return e.opened(n) + d - n // past the outermost label: the function's own
	}
	return e.opened(n) - e.opened(n-d)
}

// brTable rewrites a br_table's depths.
func (e *emitter) brTable(raw []byte) error {
	r := &reader{b: raw, off: 1}
	n, err := r.count(1)
	if err != nil {
		return err
	}
	e.op(0x0E, uint64(n))
	for i := 0; i <= n; i++ {
		d, err := r.u32()
		if err != nil {
			return err
		}
		e.out = appendU64(e.out, uint64(e.depth(int(d))))
	}
	return nil
}

// loopOutlined opens a loop (of block type bt, without parameters) whose
// check branches out of it to a poll placed after it, so the loop body
// holds no call the compiler must keep registers around:
//
//	block bt          ;; exit
//	  loop            ;; retry
//	    block         ;; slow
//	      loop bt     ;; the original loop
//	        fuel -= w; br_if slow (fuel < 0)
//	        ...body...
//	      end
//	      br exit
//	    end
//	    fuel = poll(); br retry
//	  end
//	  unreachable
//	end
func (e *emitter) loopOutlined(bt []byte, w int32) {
	e.out = append(e.out, 0x02)
	e.out = append(e.out, bt...)
	e.out = append(e.out, 0x03, 0x40, 0x02, 0x40, 0x03)
	e.out = append(e.out, bt...)
	e.op(0x20, e.local)
	e.out = append(e.out, 0x41)
	e.out = appendS32(e.out, w)
	e.out = append(e.out, 0x6B) // i32.sub
	e.op(0x22, e.local)
	e.out = append(e.out, 0x41, 0x00, 0x48, 0x0D, 0x01) // i32.const 0; i32.lt_s; br_if 1
	e.push(outlinedLabels)
	e.weights = append(e.weights, w)
}

// endOutlined closes what loopOutlined opened. The poll's fuel is topped up
// by the loop's weight w, which the check at the header charges again.
func (e *emitter) endOutlined(w int32) {
	e.out = append(e.out, 0x0B, 0x0C, 0x02, 0x0B) // end loop; br exit; end slow
	e.op(0x10, uint64(e.mi.pollFunc))
	e.out = append(e.out, 0x41)
	e.out = appendS32(e.out, w)
	e.out = append(e.out, 0x6A) // i32.add
	e.op(0x21, e.local)
	e.out = append(e.out, 0x0C, 0x00, 0x0B, 0x00, 0x0B) // br retry; end retry; unreachable; end exit
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

func (e *emitter) load() { e.op(0x23, uint64(e.mi.fuelGlobal)); e.op(0x21, e.local) }

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

func (e *emitter) entryLocal(w int32) { e.op(0x23, uint64(e.mi.fuelGlobal)); e.spend(w, false) }

func (e *emitter) loopCheck(w int32) { e.op(0x20, e.local); e.spend(w, false) }

// frameSize estimates the bytes a call of a function takes on the
// engine's stack, given n, its locals (parameters included) plus the most
// values its operand stack can hold (maxHeight): 16 bytes each (a v128
// slot), and the frame's header. A value live across a call is spilled to
// the frame, so the operand stack's height bounds what a call keeps.
func frameSize(n uint64) int32 {
	return int32(min(16*n+64, maxWeight))
}

// pushFrame adds a frame to the depth global, keeping the depth it found
// in a local, and calls the stack hook when the depth passes the limit;
// popFrame puts the depth found back. Restoring rather than subtracting
// keeps the exit off the chain of loads and stores through the global that
// every call extends: the value stored comes from the frame, not from the
// global as the callees left it (a loop-free call tree: 1.4× the engine's
// time with the subtraction, see RATIONALE.md).
func (e *emitter) pushFrame(size int32) {
	e.op(0x23, uint64(e.mi.fuelGlobal+1))
	e.op(0x22, e.saved) // local.tee
	e.out = append(e.out, 0x41)
	e.out = appendS32(e.out, size)
	e.out = append(e.out, 0x6A) // i32.add
	e.op(0x24, uint64(e.mi.fuelGlobal+1))
	e.op(0x23, uint64(e.mi.fuelGlobal+1))
	e.out = append(e.out, 0x41)
	e.out = appendS32(e.out, e.mi.opts.StackLimit)
	e.out = append(e.out, 0x4B, 0x04, 0x40) // i32.gt_u; if
	e.op(0x10, uint64(e.mi.stackFunc))
	e.out = append(e.out, 0x00, 0x0B) // unreachable; end
}

func (e *emitter) popFrame() {
	e.op(0x20, e.saved)
	e.op(0x24, uint64(e.mi.fuelGlobal+1))
}

// chargeLength spends the length on top of the stack (kept there), shifted
// right by shift, before a bulk operation, and polls when the fuel runs
// out: a loop of large fills or copies is stopped like any other loop.
func (e *emitter) chargeLength(mode int, shift int32) {
	e.op(0x22, e.tmp) // local.tee tmp: the length stays on the stack
	if mode == modeLocal {
		e.op(0x20, e.local)
	} else {
		e.op(0x23, uint64(e.mi.fuelGlobal))
	}
	e.op(0x20, e.tmp)
	e.out = append(e.out, 0x41)
	e.out = appendS32(e.out, shift)
	e.out = append(e.out, 0x76, 0x6B) // i32.shr_u; i32.sub
	e.spend(0, mode != modeLocal)
}
