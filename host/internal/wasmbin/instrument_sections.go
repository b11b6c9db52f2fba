package wasmbin

import "fmt"

// rewriteSection returns the body of s in the instrumented module, or nil
// to drop it. Sections that hold no function index are copied unchanged.
func (mi *moduleInfo) rewriteSection(s section) ([]byte, error) {
	r := &reader{b: s.body}
	switch s.id {
	case 1: // types: the poll's, then the block types of multi-result functions
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		out := appendU64(nil, uint64(n)+2+uint64(len(mi.newTypes)))
		out = append(out, r.b[r.off:]...)
		out = append(out, 0x60, 0x00, 0x01, 0x7F, 0x60, 0x00, 0x00) // poll, grow hook
		for _, res := range mi.newTypes {
			out = append(out, 0x60, 0x00)
			out = appendU64(out, uint64(len(res)))
			out = append(out, res...)
		}
		return out, nil
	case 2: // imports: the poll comes last
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		out := appendU64(nil, uint64(n)+uint64(mi.added))
		out = append(out, r.b[r.off:]...)
		for i, name := range []string{mi.opts.Name, mi.opts.GrowFailed, mi.opts.StackExhausted} {
			if i > 0 && (name == "" || (i == 2 && mi.opts.StackLimit <= 0)) {
				continue
			}
			for _, s := range []string{mi.opts.Module, name} {
				out = appendU64(out, uint64(len(s)))
				out = append(out, s...)
			}
			out = append(out, byte(KindFunc))
			out = appendU64(out, uint64(mi.pollType)+uint64(min(i, 1)))
		}
		return out, nil
	case 6: // globals: ref.func in initializers, then the fuel
		added := uint32(1)
		if mi.opts.StackLimit > 0 {
			added++
		}
		out, err := rewriteVec(r, added, func(out []byte, _ uint32) ([]byte, error) {
			start := r.off
			if err := r.globalType(); err != nil {
				return nil, err
			}
			return mi.copyExpr(append(out, r.b[start:r.off]...), r)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, 0x7F, 0x01, 0x41) // mut i32 = i32.const Fuel
		out = appendS32(out, mi.opts.Fuel)
		out = append(out, 0x0B)
		if added > 1 {
			out = append(out, 0x7F, 0x01, 0x41, 0x00, 0x0B) // mut i32 = 0: the stack depth
		}
		return out, nil
	case 3: // functions: the sleep clamp comes last
		if !mi.clampSleeps {
			return s.body, nil
		}
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		out := appendU64(nil, uint64(n)+1)
		out = append(out, r.b[r.off:]...)
		return appendU64(out, uint64(mi.pollOneoffType)), nil
	case 7:
		return mi.rewriteExports(r)
	case 8:
		idx, err := r.u32()
		return appendU64(nil, uint64(mi.shift(idx))), err
	case 9:
		return mi.rewriteElems(r)
	case 0:
		if s.name == "name" {
			return mi.rewriteNames(s.body), nil
		}
	}
	return s.body, nil
}

// copyExpr copies a constant expression from r to out, shifting ref.func.
func (mi *moduleInfo) copyExpr(out []byte, r *reader) ([]byte, error) {
	ins, err := decodeExpr(r, nil)
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		if in.kind == kindRefFunc {
			out = append(out, 0xD2)
			out = appendU64(out, uint64(mi.target(in.idx)))
			continue
		}
		out = append(out, r.b[in.start:in.end]...)
	}
	return out, nil
}

// rewriteVec rewrites a vector: its count, plus extra items the caller
// appends after it, then each item as item appends it to out.
func rewriteVec(r *reader, extra uint32, item func(out []byte, i uint32) ([]byte, error)) ([]byte, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	out := appendU64(nil, uint64(n)+uint64(extra))
	for i := uint32(0); i < n; i++ {
		if out, err = item(out, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rewriteExports shifts the function indices of exports.
func (mi *moduleInfo) rewriteExports(r *reader) ([]byte, error) {
	return rewriteVec(r, 0, func(out []byte, _ uint32) ([]byte, error) {
		start := r.off
		if _, err := r.name(); err != nil {
			return nil, err
		}
		kind, err := r.byte()
		if err != nil {
			return nil, err
		}
		idxAt := r.off
		idx, err := r.u32()
		if err != nil {
			return nil, err
		}
		out = append(out, r.b[start:idxAt]...)
		if Kind(kind) == KindFunc {
			idx = mi.shift(idx)
		}
		return appendU64(out, uint64(idx)), nil
	})
}

// rewriteElems shifts the function indices of element segments, in both the
// index-vector and the expression encodings.
func (mi *moduleInfo) rewriteElems(r *reader) ([]byte, error) {
	return rewriteVec(r, 0, func(out []byte, i uint32) ([]byte, error) {
		flags, err := r.u32()
		if err != nil {
			return nil, err
		}
		if flags > 7 {
			return nil, fmt.Errorf("element segment %d has flags %d", i, flags)
		}
		out = appendU64(out, uint64(flags))
		if flags&2 != 0 && flags&1 == 0 { // explicit table index
			t, err := r.u32()
			if err != nil {
				return nil, err
			}
			out = appendU64(out, uint64(t))
		}
		if flags&1 == 0 { // active: offset expression
			if out, err = mi.copyExpr(out, r); err != nil {
				return nil, err
			}
		}
		if flags&3 != 0 { // element kind or reference type byte
			b, err := r.byte()
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		cnt, err := r.count(1)
		if err != nil {
			return nil, err
		}
		out = appendU64(out, uint64(cnt))
		for j := 0; j < cnt; j++ {
			if flags&4 != 0 {
				if out, err = mi.copyExpr(out, r); err != nil {
					return nil, err
				}
				continue
			}
			idx, err := r.u32()
			if err != nil {
				return nil, err
			}
			out = appendU64(out, uint64(mi.target(idx)))
		}
		return out, nil
	})
}

// rewriteNames keeps the module name and the function and local names,
// shifted, and drops the other subsections (labels, types, ...), whose
// indices the rewrite may change. A name section it cannot read is
// dropped: names only decorate stack traces.
func (mi *moduleInfo) rewriteNames(body []byte) []byte {
	r := &reader{b: body}
	if _, err := r.name(); err != nil {
		return nil
	}
	out := append([]byte(nil), body[:r.off]...)
	for r.left() > 0 {
		id, err := r.byte()
		if err != nil {
			return nil
		}
		size, err := r.u32()
		if err != nil {
			return nil
		}
		sub, err := r.sub(uint64(size), "name subsection")
		if err != nil {
			return nil
		}
		var content []byte
		switch id {
		case 0:
			content = sub.b[sub.off:]
		case 1, 2:
			if content = mi.shiftNameMap(sub, id == 2); content == nil {
				return nil
			}
		default:
			continue
		}
		out = append(out, id)
		out = appendU64(out, uint64(len(content)))
		out = append(out, content...)
	}
	return out
}

// shiftNameMap rewrites a name map keyed by function index (with an
// indirect map of local names when locals is set).
func (mi *moduleInfo) shiftNameMap(r *reader, locals bool) []byte {
	n, err := r.count(2)
	if err != nil {
		return nil
	}
	out := appendU64(nil, uint64(n))
	for i := 0; i < n; i++ {
		idx, err := r.u32()
		if err != nil {
			return nil
		}
		out = appendU64(out, uint64(mi.shift(idx)))
		start := r.off
		if locals {
			m, err := r.count(2)
			for j := 0; j < m && err == nil; j++ {
				if _, err = r.u32(); err == nil {
					_, err = r.name()
				}
			}
			if err != nil {
				return nil
			}
		} else if _, err := r.name(); err != nil {
			return nil
		}
		out = append(out, r.b[start:r.off]...)
	}
	return out
}
