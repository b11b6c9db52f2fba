package wasmbin

import "fmt"

// A generator of valid modules of random shape, driven by fuzz bytes, for
// FuzzInstrumentSemantics. Every value is an i32. Every module:
//
//   - imports env.host_add (i32 i32) -> i32 (function 0), so defined
//     functions do not start at index 0;
//   - defines 1-6 functions of 0-3 parameters and 0-3 results, each
//     exported as f<i>, with 1-3 declared locals;
//   - has a table holding every function (call_indirect), one memory of
//     1 page growing to at most 3 (exported), a data segment, and 1-3
//     mutable globals (exported as g<i>) besides global 0, the budget;
//   - terminates: every function entry and every loop header takes one
//     from the budget global, and returns (a function) or leaves (a loop,
//     through the block wrapped around it) when it is spent, so a run
//     executes at most genBudget iterations and calls, each of bounded
//     length.
//
// Bodies nest block, loop and if/else (with 0-1 parameters and 0-2
// results), and branch with br, br_if and br_table to any open label,
// the function's included; they return from inside blocks, call each
// other directly and through the table (a wrong signature traps, as it
// should in both forms), load and store within the first page (and now
// and then anywhere, to trap), grow memory, select, divide (trapping on
// zero) and execute unreachable, rarely.

const (
	genBudget   = 300 // function entries plus loop iterations per run
	genMaxDepth = 5   // nesting of blocks and expressions
	genMaxSize  = 400 // instructions per function, roughly
)

// genSrc hands out the fuzz bytes as choices; once they are used up every
// choice is 0, which always ends what is being generated.
type genSrc struct {
	b []byte
	i int
}

func (s *genSrc) n(k int) int {
	if k <= 1 || s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i])
	s.i++
	return v % k
}

func (s *genSrc) i32() int32 {
	v := int32(0)
	for range 4 {
		v = v<<8 | int32(s.n(256))
	}
	return v
}

type genSig struct{ params, results int }

type gen struct {
	src     *genSrc
	types   []genSig
	funcs   []genSig // the defined functions (function index 1+i)
	globals int      // user globals; global 0 is the budget
	// the function being generated
	out    []byte
	labels []int // arity of each open label (branch values), the function's first
	fn     genSig
	locals int // parameters and declared locals
	depth  int
	size   int
}

func (g *gen) typeIdx(s genSig) int {
	for i, t := range g.types {
		if t == s {
			return i
		}
	}
	g.types = append(g.types, s)
	return len(g.types) - 1
}

func (g *gen) op(b ...byte)      { g.out = append(g.out, b...); g.size++ }
func (g *gen) opU(b byte, v int) { g.op(b); g.out = appendU64(g.out, uint64(v)) }
func (g *gen) i32c(v int32)      { g.op(0x41); g.out = appendS32(g.out, v) }

// blockType encodes a block type of p parameters and r results.
func (g *gen) blockType(p, r int) []byte {
	switch {
	case p == 0 && r == 0:
		return []byte{0x40}
	case p == 0 && r == 1:
		return []byte{0x7F}
	}
	return appendS32(nil, int32(g.typeIdx(genSig{p, r})))
}

// generateModule builds a module from the fuzz bytes in src.
func generateModule(src []byte) []byte {
	g := &gen{src: &genSrc{b: src}}
	hostAdd := g.typeIdx(genSig{2, 1})
	nf := 1 + g.src.n(6)
	for range nf {
		g.funcs = append(g.funcs, genSig{g.src.n(4), g.src.n(4)})
		g.typeIdx(g.funcs[len(g.funcs)-1])
	}
	g.globals = 1 + g.src.n(3)
	var bodies [][]byte
	for i := range g.funcs {
		bodies = append(bodies, g.function(g.funcs[i]))
	}

	var types, funcs, exports, code []byte
	types = appendU64(types, uint64(len(g.types)))
	for _, t := range g.types {
		types = append(types, 0x60)
		for _, n := range []int{t.params, t.results} {
			types = appendU64(types, uint64(n))
			for range n {
				types = append(types, 0x7F)
			}
		}
	}
	imports := append(leb(1), str("env")...)
	imports = append(append(imports, str("host_add")...), 0x00)
	imports = appendU64(imports, uint64(hostAdd))
	funcs = appendU64(funcs, uint64(nf))
	for _, f := range g.funcs {
		funcs = appendU64(funcs, uint64(g.typeIdx(f)))
	}
	table := append(leb(1), 0x70, 0x00)
	table = appendU64(table, uint64(nf+1))
	globals := appendU64(nil, uint64(1+g.globals))
	globals = append(globals, 0x7F, 0x01, 0x41)
	globals = append(appendS32(globals, genBudget), 0x0B)
	for range g.globals {
		globals = append(globals, 0x7F, 0x01, 0x41)
		globals = append(appendS32(globals, g.src.i32()), 0x0B)
	}
	exports = appendU64(exports, uint64(nf+1+g.globals+1))
	for i := range nf {
		exports = append(append(exports, str(fmt.Sprintf("f%d", i))...), 0x00)
		exports = appendU64(exports, uint64(1+i))
	}
	for i := range 1 + g.globals {
		exports = append(append(exports, str(fmt.Sprintf("g%d", i))...), 0x03)
		exports = appendU64(exports, uint64(i))
	}
	exports = append(append(exports, str("memory")...), 0x02, 0x00)
	elem := append(leb(1), 0x00, 0x41, 0x00, 0x0B)
	elem = appendU64(elem, uint64(nf+1))
	for i := range nf + 1 {
		elem = appendU64(elem, uint64(i))
	}
	code = appendU64(code, uint64(nf))
	for _, b := range bodies {
		code = appendU64(code, uint64(len(b)))
		code = append(code, b...)
	}
	init := make([]byte, 1+g.src.n(64))
	for i := range init {
		init[i] = byte(g.src.n(256))
	}
	data := append(leb(1), 0x00, 0x41)
	data = append(appendS32(data, int32(g.src.n(1024))), 0x0B)
	data = append(appendU64(data, uint64(len(init))), init...)

	return module(sec(1, types), sec(2, imports), sec(3, funcs), sec(4, table),
		sec(5, leb(1), []byte{0x01, 1, 3}), sec(6, globals), sec(7, exports),
		sec(9, elem), sec(10, code), sec(11, data))
}

// function returns the body of a function of signature s.
func (g *gen) function(s genSig) []byte {
	declared := 1 + g.src.n(3)
	g.out = append(leb(1), byte(declared), 0x7F)
	g.fn, g.locals, g.labels, g.depth, g.size = s, s.params+declared, []int{s.results}, 0, 0
	// take one from the budget; return constants when it is spent
	g.spendBudget()
	g.op(0x04, 0x40)
	for range s.results {
		g.i32c(g.src.i32())
	}
	g.op(0x0F, 0x0B)
	g.stmts()
	g.values(s.results)
	g.op(0x0B)
	return g.out
}

// spendBudget leaves "budget ran out" on the stack, taking one from it.
func (g *gen) spendBudget() {
	g.opU(0x23, 0)
	g.i32c(1)
	g.op(0x6B)
	g.opU(0x24, 0)
	g.opU(0x23, 0)
	g.i32c(0)
	g.op(0x48) // i32.lt_s
}

func (g *gen) full() bool { return g.depth >= genMaxDepth || g.size >= genMaxSize }

func (g *gen) stmts() {
	for !g.full() && g.src.n(5) != 0 {
		g.stmt()
	}
}

func (g *gen) values(n int) {
	for range n {
		g.expr()
	}
}

func (g *gen) drops(n int) {
	for range n {
		g.op(0x1A)
	}
}

// depthOf is the branch depth of label i.
func (g *gen) depthOf(i int) int { return len(g.labels) - 1 - i }

func (g *gen) stmt() {
	g.depth++
	defer func() { g.depth-- }()
	switch g.src.n(16) {
	case 0, 1:
		g.expr()
		g.opU(0x21, g.src.n(g.locals)) // local.set
	case 2:
		g.expr()
		g.opU(0x24, 1+g.src.n(g.globals)) // global.set
	case 3:
		g.address()
		g.expr()
		g.store()
	case 4:
		g.expr()
		g.op(0x1A)
	case 5, 6, 7:
		r := g.structured()
		g.drops(r)
	case 8: // br
		l := g.src.n(len(g.labels))
		g.values(g.labels[l])
		g.opU(0x0C, g.depthOf(l))
	case 9: // br_if
		l := g.src.n(len(g.labels))
		g.values(g.labels[l])
		g.expr()
		g.opU(0x0D, g.depthOf(l))
		g.drops(g.labels[l])
	case 10: // br_table to labels of the arity of the first pick
		l := g.src.n(len(g.labels))
		a := g.labels[l]
		var targets []int
		for range 1 + g.src.n(4) {
			if t := g.src.n(len(g.labels)); g.labels[t] == a {
				targets = append(targets, g.depthOf(t))
			}
		}
		g.values(a)
		g.expr()
		g.opU(0x0E, len(targets))
		for _, t := range targets {
			g.out = appendU64(g.out, uint64(t))
		}
		g.out = appendU64(g.out, uint64(g.depthOf(l)))
	case 11:
		if g.src.n(3) == 0 {
			g.values(g.fn.results)
			g.op(0x0F) // return
		}
	case 12:
		g.drops(g.call())
	case 13:
		g.expr()
		g.i32c(1)
		g.op(0x71)       // i32.and
		g.op(0x40, 0x00) // memory.grow
		g.opU(0x21, g.src.n(g.locals))
	case 14:
		if g.src.n(16) == 0 {
			g.op(0x00) // unreachable
		}
	case 15:
		g.drops(g.callIndirect())
	}
}

// address pushes a memory address: in the first page, or now and then
// anything (which may trap).
func (g *gen) address() {
	g.expr()
	if g.src.n(32) != 0 {
		g.i32c(0xFFF0)
		g.op(0x71)
	}
}

// memOp emits one of ops, memory instructions of 32, 8 and 16 bits (its
// alignment exponent 2, 0 or 1), with an offset below 8.
func (g *gen) memOp(ops [3]byte) {
	off := g.src.n(8)
	w := g.src.n(3)
	g.op(ops[w], [3]byte{2, 0, 1}[w])
	g.out = appendU64(g.out, uint64(off))
}

func (g *gen) store() { g.memOp([3]byte{0x36, 0x3A, 0x3B}) } // i32.store, i32.store8, i32.store16

// structured emits a block, loop or if of random type with its parameters
// before it, and returns how many results it leaves.
func (g *gen) structured() int {
	p, r := g.src.n(2), g.src.n(3)
	g.values(p)
	switch g.src.n(3) {
	case 0: // block
		g.op(0x02)
		g.out = append(g.out, g.blockType(p, r)...)
		g.body(r, p)
		g.op(0x0B)
	case 1: // loop, in a block to leave it when the budget is spent
		bt := g.blockType(p, r)
		g.op(0x02)
		g.out = append(g.out, bt...)
		g.labels = append(g.labels, r)
		g.op(0x03)
		g.out = append(g.out, bt...)
		g.labels = append(g.labels, p)
		g.spendBudget()
		g.op(0x04, 0x40)
		for range r { // constants: code here could branch past the leave
			g.i32c(g.src.i32())
		}
		g.opU(0x0C, 2) // leave
		g.op(0x0B)
		g.consume(p)
		g.stmts()
		if g.src.n(2) == 0 { // iterate while a condition holds
			g.values(p)
			g.expr()
			g.opU(0x0D, 0)
			g.drops(p)
		}
		g.values(r)
		g.labels = g.labels[:len(g.labels)-2]
		g.op(0x0B, 0x0B)
	case 2: // if, with or without else
		g.expr()
		g.op(0x04)
		g.out = append(g.out, g.blockType(p, r)...)
		if p == r && g.src.n(2) == 0 {
			g.labels = append(g.labels, r)
			g.stmts()
			g.labels = g.labels[:len(g.labels)-1]
		} else {
			g.body(r, p)
			g.op(0x05)
			g.body(r, p)
		}
		g.op(0x0B)
	}
	return r
}

// body fills a block of p parameters and r results.
func (g *gen) body(r, p int) {
	g.labels = append(g.labels, r)
	g.consume(p)
	g.stmts()
	g.values(r)
	g.labels = g.labels[:len(g.labels)-1]
}

// consume stores a block's p parameters to locals.
func (g *gen) consume(p int) {
	for range p {
		g.opU(0x21, g.src.n(g.locals))
	}
}

// call calls a defined function or the import and returns how many
// results it leaves.
func (g *gen) call() int {
	f, s := g.callee()
	g.opU(0x10, f)
	return s.results
}

// callee picks a defined function or the import (0), for a call or the
// signature of an indirect one, and pushes its arguments.
func (g *gen) callee() (int, genSig) {
	f := g.src.n(len(g.funcs) + 1)
	s := genSig{2, 1}
	if f > 0 {
		s = g.funcs[f-1]
	}
	g.values(s.params)
	return f, s
}
