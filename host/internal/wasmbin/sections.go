package wasmbin

// The structural walk of the sections Inspect does not report on. It exists
// because wazero's decoder (v1.12) reads every section eagerly through one
// reader over the whole input and preallocates from the counts and lengths
// it reads (vectors, names, value types, locals, body and data sizes) before
// checking them against the bytes present: a 100-byte module can make it
// allocate tens of gigabytes and kill the process. Each function here
// follows wazero's grammar for its section exactly, so that wazero's reads
// land where ours did, and bounds every count and length by the bytes left
// in the section. Anything wazero would refuse anyway may be refused here
// too; nothing else is (except the locals budget below).

import (
	"errors"
	"fmt"
)

// maxFuncLocals is the most locals one function may declare: the limit of
// V8, SpiderMonkey and JavaScriptCore. wazero expands declared locals into
// 8 bytes each, so a 7-byte body could otherwise ask for 2^32-1 of them.
const maxFuncLocals = 50_000

// localsBudget is the most locals a whole module of n bytes may declare:
// one per byte, or maxFuncLocals if that is more, so that the expansion
// stays proportional to the file.
func localsBudget(n int) uint64 { return uint64(max(n, maxFuncLocals)) }

// sub returns a reader over the next n bytes and skips them in r.
func (r *reader) sub(n uint64, what string) (*reader, error) {
	if n > uint64(r.left()) {
		return nil, fmt.Errorf("%s of %d bytes runs past the end of its section (%d left)", what, n, r.left())
	}
	s := &reader{b: r.b[:r.off+int(n)], off: r.off}
	r.off += int(n)
	return s, nil
}

func (r *reader) skip(n int) error {
	if n > r.left() {
		return errEOF
	}
	r.off += n
	return nil
}

// skipLEB skips a LEB128 of at most maxBytes bytes without decoding it.
func (r *reader) skipLEB(maxBytes int) error {
	for i := 0; i < maxBytes; i++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c < 0x80 {
			return nil
		}
	}
	return fmt.Errorf("integer at offset %d is longer than %d bytes", r.off-1, maxBytes)
}

func valTypeError(b byte) error {
	switch b {
	case refNullPrefix, refPrefix:
		return refTypeError(b)
	case 0x69:
		return fmt.Errorf("value type exnref (0x69) is not supported: %s", notInABIReason)
	}
	return fmt.Errorf("invalid value type 0x%02x", b)
}

// valType reads a value type: a number, vector or reference type byte.
func (r *reader) valType() error {
	b, err := r.byte()
	if err != nil {
		return err
	}
	switch b {
	case 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, typeFuncref, typeExternref:
		return nil
	}
	return valTypeError(b)
}

// constExpr skips a constant expression, accepting what wazero's decoder
// accepts under any feature set (extended-const, SIMD, typed ref.null).
func (r *reader) constExpr() error {
	for {
		op, err := r.byte()
		if err != nil {
			return err
		}
		switch op {
		case 0x0B: // end
			return nil
		case 0x41: // i32.const
			err = r.skipLEB(5)
		case 0x42: // i64.const
			err = r.skipLEB(10)
		case 0x43: // f32.const
			err = r.skip(4)
		case 0x44: // f64.const
			err = r.skip(8)
		case 0x23, 0xD2: // global.get, ref.func
			_, err = r.u32()
		case 0xD0: // ref.null: an abstract heap type byte, else a type index
			var ht byte
			if ht, err = r.byte(); err == nil && ht != typeFuncref && ht != typeExternref && ht != 0x69 {
				r.off--
				_, err = r.u32()
			}
		case 0x6A, 0x6B, 0x6C, 0x7C, 0x7D, 0x7E: // i32/i64 add, sub, mul (extended-const)
		case 0xFD: // v128.const: wazero reads the sub-opcode as one byte
			var sub byte
			if sub, err = r.byte(); err == nil {
				if sub != 0x0C {
					return fmt.Errorf("invalid vector opcode 0x%02x in a constant expression", sub)
				}
				err = r.skip(16)
			}
		default:
			return fmt.Errorf("opcode 0x%02x at offset %d is not allowed in a constant expression", op, r.off-1)
		}
		if err != nil {
			return err
		}
	}
}

// vec reads a vector length (each entry at least one byte) and calls
// each entry in turn.
func (r *reader) vec(what string, entry func(i int) error) (int, error) {
	n, err := r.count(1)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	for i := 0; i < n; i++ {
		if err := entry(i); err != nil {
			return 0, fmt.Errorf("%s %d: %w", what, i, err)
		}
	}
	return n, nil
}

func (r *reader) skipU32() error { _, err := r.u32(); return err }

func parseTypes(r *reader, m *Module) error {
	_, err := r.vec("type", func(int) error {
		form, err := r.byte()
		switch {
		case err != nil:
			return err
		case form == 0x4E:
			return fmt.Errorf("recursive type group (0x4e) is not supported: %s", notInABIReason)
		case form != 0x60:
			return fmt.Errorf("invalid type form 0x%02x (function types are 0x60)", form)
		}
		var ft FuncType
		for _, dst := range []*[]byte{&ft.Params, &ft.Results} {
			what := "parameter"
			if dst == &ft.Results {
				what = "result"
			}
			if _, err := r.vec(what, func(int) error {
				if err := r.valType(); err != nil {
					return err
				}
				*dst = append(*dst, r.b[r.off-1])
				return nil
			}); err != nil {
				return err
			}
		}
		m.Types = append(m.Types, ft)
		return nil
	})
	return err
}

func parseGlobals(r *reader) error {
	_, err := r.vec("global", func(int) error {
		if err := r.globalType(); err != nil {
			return err
		}
		return r.constExpr()
	})
	return err
}

func parseTags(r *reader) error {
	_, err := r.vec("tag", func(int) error {
		attr, err := r.byte()
		if err != nil {
			return err
		}
		if attr != 0 {
			return fmt.Errorf("invalid tag attribute 0x%02x", attr)
		}
		return r.skipU32()
	})
	return err
}

func (r *reader) elemKind() error {
	k, err := r.byte()
	if err == nil && k != 0 {
		err = fmt.Errorf("element kind 0x%02x is not funcref (0x00)", k)
	}
	return err
}

func (r *reader) elemRefType() error {
	b, err := r.byte()
	if err == nil && b != typeFuncref && b != typeExternref {
		err = refTypeError(b)
	}
	return err
}

// parseElems follows the eight element segment encodings (flags 0 to 7).
func parseElems(r *reader) error {
	funcIdxs := func() error {
		_, err := r.vec("function index", func(int) error { return r.skipU32() })
		return err
	}
	exprs := func() error {
		_, err := r.vec("initializer", func(int) error { return r.constExpr() })
		return err
	}
	// The steps of each encoding: table index, offset, element kind or
	// reference type, then function indices or initializer expressions.
	encodings := [...][]func() error{
		0: {r.constExpr, funcIdxs},
		1: {r.elemKind, funcIdxs},
		2: {r.skipU32, r.constExpr, r.elemKind, funcIdxs},
		3: {r.elemKind, funcIdxs},
		4: {r.constExpr, exprs},
		5: {r.elemRefType, exprs},
		6: {r.skipU32, r.constExpr, r.elemRefType, exprs},
		7: {r.elemRefType, exprs},
	}
	_, err := r.vec("element segment", func(int) error {
		flags, err := r.u32()
		if err != nil {
			return err
		}
		if flags >= uint32(len(encodings)) {
			return fmt.Errorf("invalid element segment flags %d", flags)
		}
		for _, step := range encodings[flags] {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// parseCode checks each function body's size and local declarations,
// charging the locals to *budget, and returns the number of bodies.
func parseCode(r *reader, budget *uint64) (int, error) {
	return r.vec("function body", func(int) error {
		size, err := r.u32()
		if err != nil {
			return err
		}
		body, err := r.sub(uint64(size), "body")
		if err != nil {
			return err
		}
		var locals uint64
		if _, err := body.vec("local declaration", func(int) error {
			n, err := body.u32()
			if err != nil {
				return err
			}
			if locals += uint64(n); locals > maxFuncLocals {
				return fmt.Errorf("declares more than %d locals", maxFuncLocals)
			}
			return body.valType()
		}); err != nil {
			return err
		}
		if locals > *budget {
			return errors.New("the module declares more locals than one per byte of its size")
		}
		*budget -= locals
		return nil // the instructions are wazero's to check
	})
}

// parseData checks each data segment and returns their number.
func parseData(r *reader) (int, error) {
	return r.vec("data segment", func(int) error {
		flags, err := r.u32()
		if err != nil {
			return err
		}
		switch flags {
		case 0:
			err = r.constExpr()
		case 1:
		case 2:
			if err = r.skipU32(); err == nil {
				err = r.constExpr()
			}
		default:
			err = fmt.Errorf("invalid data segment flags %d", flags)
		}
		if err != nil {
			return err
		}
		n, err := r.u32()
		if err != nil {
			return err
		}
		_, err = r.sub(uint64(n), "data")
		return err
	})
}

// parseNameSection checks the layout of the "name" custom section's
// contents, which wazero decodes: the module name (0), function names (1)
// and local names (2); other subsections are skipped by their size.
func parseNameSection(r *reader) error {
	nameMap := func(s *reader) error {
		_, err := s.vec("name", func(int) error {
			if err := s.skipU32(); err != nil {
				return err
			}
			_, err := s.name()
			return err
		})
		return err
	}
	for r.left() > 0 {
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil {
			return fmt.Errorf("subsection %d: %w", id, err)
		}
		s, err := r.sub(uint64(size), fmt.Sprintf("subsection %d", id))
		if err != nil {
			return err
		}
		switch id {
		case 0:
			_, err = s.name()
		case 1:
			err = nameMap(s)
		case 2:
			_, err = s.vec("function", func(int) error {
				if err := s.skipU32(); err != nil {
					return err
				}
				return nameMap(s)
			})
		default:
			s.off = len(s.b)
		}
		if err == nil && s.left() != 0 {
			err = fmt.Errorf("%d unexpected bytes at its end", s.left())
		}
		if err != nil {
			return fmt.Errorf("subsection %d: %w", id, err)
		}
	}
	return nil
}
