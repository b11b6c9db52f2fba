package wasmbin

// callIndirect calls through the table with a signature of one of the
// functions and an index that may not match it.
func (g *gen) callIndirect() int {
	f, s := g.callee()
	if g.src.n(2) == 0 {
		g.i32c(int32(f))
	} else {
		g.expr()
		g.i32c(int32(len(g.funcs) + 1))
		g.op(0x70) // i32.rem_u
	}
	g.opU(0x11, g.typeIdx(s))
	g.out = append(g.out, 0x00)
	return s.results
}

// fold turns n values on the stack into one.
func (g *gen) fold(n int) {
	if n == 0 {
		g.i32c(g.src.i32())
	}
	for i := 1; i < n; i++ {
		g.op(0x73) // i32.xor
	}
}

// expr pushes one i32.
func (g *gen) expr() {
	if g.full() {
		g.leaf()
		return
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.src.n(16) {
	case 0, 1, 2:
		g.leaf()
	case 3, 4:
		g.expr()
		g.expr()
		g.op([]byte{0x6A, 0x6B, 0x6C, 0x71, 0x72, 0x73, 0x74, 0x76, 0x77, 0x46, 0x48, 0x4B}[g.src.n(12)])
	case 5:
		g.expr()
		g.op([]byte{0x45, 0x67, 0x69}[g.src.n(3)]) // eqz, clz, popcnt
	case 6:
		g.address()
		g.memOp([3]byte{0x28, 0x2D, 0x2E}) // i32.load, i32.load8_u, i32.load16_s
	case 7:
		g.expr()
		g.expr()
		g.expr()
		g.op(0x1B) // select
	case 8:
		g.fold(g.call())
	case 9:
		g.fold(g.callIndirect())
	case 10, 11:
		g.fold(g.structured())
	case 12:
		g.op(0x3F, 0x00) // memory.size
	case 13:
		g.expr()
		g.opU(0x22, g.src.n(g.locals)) // local.tee
	case 14:
		g.expr()
		g.expr()
		g.op([]byte{0x6D, 0x6E, 0x6F, 0x70}[g.src.n(4)]) // div_s, div_u, rem_s, rem_u
	case 15:
		g.expr()
		g.opU(0x21, g.src.n(g.locals))
		g.stmts()
		g.opU(0x20, g.src.n(g.locals))
	}
}

func (g *gen) leaf() {
	switch g.src.n(3) {
	case 0:
		g.i32c(g.src.i32())
	case 1:
		g.opU(0x20, g.src.n(g.locals))
	case 2:
		g.opU(0x23, g.src.n(1+g.globals))
	}
}
