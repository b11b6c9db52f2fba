package wasmbin

import "fmt"

// This file decodes function bodies instruction by instruction, for the
// interruption-point rewrite (instrument.go). It knows every opcode of the
// features wazero implements: the 2.0 core (multi-value, reference types,
// bulk memory, SIMD, sign extension, non-trapping conversions) and
// wazero's experimental threads and tail calls. Anything else (exception
// handling, typed function references, GC, multi-memory, relaxed SIMD) is
// refused with the opcode and its offset, so a module the rewriter does not
// fully understand is never run unchecked.

// Instruction kinds the rewriter cares about. Everything else is kindPlain:
// copied through unchanged.
const (
	kindPlain byte = iota
	kindBlock      // block, if: opens a label
	kindLoop       // loop: opens a label whose branches go backwards
	kindElse
	kindEnd
	kindReturn
	kindCall         // call funcidx
	kindCallIndirect // call_indirect
	kindReturnCall   // return_call funcidx
	kindReturnCallIndirect
	kindRefFunc // ref.func funcidx
	kindMemGrow // memory.grow
	kindBr      // br, br_if labelidx
	kindBrTable // br_table
	kindBulk    // memory.init/copy/fill, table.init/copy/fill: the length is on top
)

// instr is one decoded instruction: its kind, its bytes in the body, and
// for calls and ref.func the function index.
type instr struct {
	kind       byte
	start, end int
	idx        uint32
}

// decodeExpr decodes the instructions of r up to and including the `end`
// that closes the expression, appending them to buf. It checks that blocks
// nest properly, nothing more: wazero validates the rewritten module.
func decodeExpr(r *reader, buf []instr) ([]instr, error) {
	depth := 0
	for {
		in, err := decodeInstr(r)
		if err != nil {
			return buf, err
		}
		buf = append(buf, in)
		switch in.kind {
		case kindBlock, kindLoop:
			depth++
		case kindElse:
			if depth == 0 {
				return buf, fmt.Errorf("else outside of an if at offset %d", in.start)
			}
		case kindEnd:
			if depth == 0 {
				return buf, nil
			}
			depth--
		}
	}
}

// decodeInstr decodes one instruction at r's position.
func decodeInstr(r *reader) (in instr, err error) {
	in.start = r.off
	op, err := r.byte()
	if err != nil {
		return in, err
	}
	switch {
	case op == 0x00 || op == 0x01 || op == 0x0F || op == 0x1A || op == 0x1B ||
		(op >= 0x45 && op <= 0xC4) || op == 0xD1:
		// unreachable, nop, return, drop, select, numeric, ref.is_null
		if op == 0x0F {
			in.kind = kindReturn
		}
	case op == 0x02 || op == 0x03 || op == 0x04:
		in.kind = kindBlock
		if op == 0x03 {
			in.kind = kindLoop
		}
		err = r.blockType()
	case op == 0x05:
		in.kind = kindElse
	case op == 0x0B:
		in.kind = kindEnd
	case op == 0x0C || op == 0x0D: // br, br_if
		in.kind = kindBr
		in.idx, err = r.u32()
	case op == 0x0E: // br_table
		in.kind = kindBrTable
		var n int
		if n, err = r.count(1); err == nil {
			for i := 0; i <= n && err == nil; i++ {
				_, err = r.u32()
			}
		}
	case op == 0x10 || op == 0x12 || op == 0xD2: // call, return_call, ref.func
		switch op {
		case 0x10:
			in.kind = kindCall
		case 0x12:
			in.kind = kindReturnCall
		default:
			in.kind = kindRefFunc
		}
		in.idx, err = r.u32()
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		in.kind = kindCallIndirect
		if op == 0x13 {
			in.kind = kindReturnCallIndirect
		}
		if _, err = r.u32(); err == nil {
			_, err = r.u32()
		}
	case op == 0x1C: // select t*
		var n int
		if n, err = r.count(1); err == nil {
			for i := 0; i < n && err == nil; i++ {
				err = r.valType()
			}
		}
	case op >= 0x20 && op <= 0x26: // local.*, global.*, table.get/set
		_, err = r.u32()
	case op >= 0x28 && op <= 0x3E: // loads and stores
		err = r.memArg()
	case op == 0x3F || op == 0x40: // memory.size, memory.grow
		if op == 0x40 {
			in.kind = kindMemGrow
		}
		err = r.memIndex()
	case op == 0x41:
		err = r.skipLEB(5)
	case op == 0x42:
		err = r.skipLEB(10)
	case op == 0x43:
		err = r.skip(4)
	case op == 0x44:
		err = r.skip(8)
	case op == 0xD0: // ref.null
		var t byte
		if t, err = r.byte(); err == nil && t != typeFuncref && t != typeExternref {
			err = fmt.Errorf("ref.null of heap type 0x%02x at offset %d is not supported", t, in.start)
		}
	case op == 0xFC:
		err = r.miscOp(in.start)
		if err == nil {
			sub, _ := (&reader{b: r.b, off: in.start + 1}).u32()
			in.idx = sub
			switch sub {
			case 8, 10, 11:
				in.kind, in.idx = kindBulk, bulkMemoryShift
			case 12, 14, 17:
				in.kind, in.idx = kindBulk, bulkTableShift
			}
		}
	case op == 0xFD:
		err = r.simdOp(in.start)
		in.idx, _ = (&reader{b: r.b, off: in.start + 1}).u32()
	case op == 0xFE:
		err = r.atomicOp(in.start)
	default:
		err = fmt.Errorf("opcode 0x%02x at offset %d is not supported (exception handling, typed references and GC are not enabled)", op, in.start)
	}
	in.end = r.off
	return in, err
}

// blockType reads a block type: empty (0x40), a value type, or a type
// index as a positive signed LEB128 (s33).
func (r *reader) blockType() error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	switch c {
	case 0x40, 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, typeFuncref, typeExternref:
		return nil
	}
	if c&0x40 != 0 { // a negative s33 that is not a value type
		return fmt.Errorf("invalid block type 0x%02x at offset %d", c, r.off-1)
	}
	r.off--
	return r.skipLEB(5)
}

// memArg reads a memory access's alignment and offset. A set bit 6 in the
// alignment (multi-memory's memory index) is refused.
func (r *reader) memArg() error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 {
		return fmt.Errorf("a memory index at offset %d (multi-memory) is not supported", r.off-1)
	}
	_, err = r.uleb(64)
	return err
}

// memIndex reads the memory index byte of memory.size and friends, which
// must be zero.
func (r *reader) memIndex() error {
	c, err := r.byte()
	if err == nil && c != 0 {
		err = fmt.Errorf("memory index %d at offset %d (multi-memory) is not supported", c, r.off-1)
	}
	return err
}

// miscOp reads the 0xFC-prefixed instructions: saturating conversions,
// bulk memory and table operations.
func (r *reader) miscOp(at int) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7: // trunc_sat
		return nil
	case sub == 8: // memory.init data mem
		if _, err = r.u32(); err == nil {
			err = r.memIndex()
		}
	case sub == 9 || sub == 13 || (sub >= 15 && sub <= 17): // data.drop, elem.drop, table.grow/size/fill
		_, err = r.u32()
	case sub == 10: // memory.copy
		if err = r.memIndex(); err == nil {
			err = r.memIndex()
		}
	case sub == 11: // memory.fill
		err = r.memIndex()
	case sub == 12 || sub == 14: // table.init elem table, table.copy table table
		if _, err = r.u32(); err == nil {
			_, err = r.u32()
		}
	default:
		err = fmt.Errorf("instruction 0xFC %d at offset %d is not supported", sub, at)
	}
	return err
}

// simdOp reads the 0xFD-prefixed vector instructions (fixed-width SIMD;
// relaxed SIMD is refused).
func (r *reader) simdOp(at int) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 0x0B || sub == 0x5C || sub == 0x5D: // loads, stores
		return r.memArg()
	case sub == 0x0C || sub == 0x0D: // v128.const, i8x16.shuffle
		return r.skip(16)
	case sub >= 0x15 && sub <= 0x22: // extract_lane, replace_lane
		return r.skip(1)
	case sub >= 0x54 && sub <= 0x5B: // load*_lane, store*_lane
		if err = r.memArg(); err == nil {
			err = r.skip(1)
		}
		return err
	case sub <= 0xFF:
		return nil // the remaining vector operations have no immediates
	}
	return fmt.Errorf("vector instruction 0xFD %d at offset %d is not supported", sub, at)
}

// atomicOp reads the 0xFE-prefixed instructions of the threads proposal.
func (r *reader) atomicOp(at int) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub == 0x03: // atomic.fence
		c, err := r.byte()
		if err == nil && c != 0 {
			err = fmt.Errorf("atomic.fence with flags 0x%02x at offset %d", c, at)
		}
		return err
	case sub <= 0x02 || (sub >= 0x10 && sub <= 0x4E):
		return r.memArg()
	}
	return fmt.Errorf("atomic instruction 0xFE %d at offset %d is not supported", sub, at)
}
