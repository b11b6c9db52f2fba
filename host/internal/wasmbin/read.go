package wasmbin

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

var errEOF = errors.New("unexpected end of module")

// reader reads the binary format from b[off:]. Every read checks the bytes
// that are actually left, so a claimed length or count never reaches past
// the input or drives an allocation.
type reader struct {
	b   []byte
	off int
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errEOF
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// uleb reads an unsigned LEB128 of at most maxBits bits, as the spec
// requires: at most ceil(maxBits/7) bytes, and the unused high bits of the
// last byte zero.
func (r *reader) uleb(maxBits uint) (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if shift+7 > maxBits && uint64(c&0x7f)>>(maxBits-shift) != 0 {
			return 0, fmt.Errorf("integer at offset %d does not fit in %d bits", r.off-1, maxBits)
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
		if shift+7 >= maxBits {
			return 0, fmt.Errorf("integer at offset %d is longer than a %d-bit LEB128", r.off-1, maxBits)
		}
	}
}

func (r *reader) u32() (uint32, error) {
	v, err := r.uleb(32)
	return uint32(v), err
}

// count reads a vector length and checks that at least minSize bytes per
// element remain, so a hostile count cannot drive an allocation or a long
// loop.
func (r *reader) count(minSize int) (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(r.left()) {
		return 0, fmt.Errorf("a vector of %d entries cannot fit in the %d bytes left", n, r.left())
	}
	return int(n), nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if uint64(n) > uint64(r.left()) {
		return "", fmt.Errorf("name of %d bytes runs past the end of its section", n)
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("name %q is not valid UTF-8", s)
	}
	return s, nil
}

// Limits flag bits: 0x01 has a maximum, 0x02 shared (threads), 0x04 64-bit
// index type (memory64, which also defines table64).
const (
	limHasMax = 0x01
	limShared = 0x02
	limIs64   = 0x04
)

func (r *reader) limits(what string) (Limits, error) {
	flag, err := r.byte()
	if err != nil {
		return Limits{}, err
	}
	if flag > limHasMax|limShared|limIs64 {
		return Limits{}, fmt.Errorf("%s limits: invalid flag byte 0x%02x", what, flag)
	}
	l := Limits{HasMax: flag&limHasMax != 0, Shared: flag&limShared != 0, Is64: flag&limIs64 != 0}
	bits := uint(32)
	if l.Is64 {
		bits = 64
	}
	if l.Min, err = r.uleb(bits); err != nil {
		return Limits{}, fmt.Errorf("%s limits: minimum: %w", what, err)
	}
	if l.HasMax {
		if l.Max, err = r.uleb(bits); err != nil {
			return Limits{}, fmt.Errorf("%s limits: maximum: %w", what, err)
		}
		if l.Max < l.Min {
			return Limits{}, fmt.Errorf("%s limits: maximum %d is below minimum %d", what, l.Max, l.Min)
		}
	}
	if l.Shared && !l.HasMax {
		return Limits{}, fmt.Errorf("%s limits: a shared %s needs a maximum", what, what)
	}
	return l, nil
}

// Reference and value type bytes.
const (
	typeFuncref    = 0x70
	typeExternref  = 0x6F
	refNullPrefix  = 0x63 // (ref null ht), function-references proposal
	refPrefix      = 0x64 // (ref ht)
	tableInitFlag  = 0x40 // 0x40 0x00 tabletype expr, function-references proposal
	notInABIReason = "mcpwasm's ABI allows MVP plus reference types, not the function-references or GC proposals"
)

func refTypeError(b byte) error {
	switch b {
	case refNullPrefix, refPrefix:
		return fmt.Errorf("typed reference type (prefix 0x%02x) is not supported: %s", b, notInABIReason)
	}
	return fmt.Errorf("reference type 0x%02x is not supported (funcref 0x70 or externref 0x6f only)", b)
}

func (r *reader) table() (Table, error) {
	et, err := r.byte()
	if err != nil {
		return Table{}, err
	}
	switch et {
	case typeFuncref, typeExternref:
	case tableInitFlag:
		return Table{}, fmt.Errorf("a table with an initializer expression (0x40 0x00 prefix) is not supported: %s", notInABIReason)
	default:
		return Table{}, refTypeError(et)
	}
	l, err := r.limits("table")
	if err != nil {
		return Table{}, err
	}
	if l.Shared {
		return Table{}, errors.New("a table cannot be shared")
	}
	return Table{ElemType: et, Limits: l}, nil
}

func (r *reader) globalType() error {
	if err := r.valType(); err != nil {
		return err
	}
	mut, err := r.byte()
	if err != nil {
		return err
	}
	if mut > 1 {
		return fmt.Errorf("invalid global mutability 0x%02x", mut)
	}
	return nil
}

func parseImports(r *reader, m *Module) error {
	n, err := r.count(4) // module name, name, kind, descriptor: a byte each at least
	if err != nil {
		return fmt.Errorf("import section: %w", err)
	}
	for i := 0; i < n; i++ {
		mod, err := r.name()
		if err != nil {
			return fmt.Errorf("import %d: module name: %w", i, err)
		}
		nm, err := r.name()
		if err != nil {
			return fmt.Errorf("import %d (%q): name: %w", i, mod, err)
		}
		k, err := r.byte()
		if err != nil {
			return fmt.Errorf("import %q.%q: %w", mod, nm, err)
		}
		typ, err := r.importDesc(Kind(k))
		if err != nil {
			return fmt.Errorf("import %q.%q (%s): %w", mod, nm, Kind(k), err)
		}
		m.Imports = append(m.Imports, Import{Module: mod, Name: nm, Kind: Kind(k), Type: typ})
	}
	return nil
}

// importDesc reads the descriptor of an import of kind k, and returns a
// function import's type index.
func (r *reader) importDesc(k Kind) (uint32, error) {
	var typ uint32
	var err error
	switch k {
	case KindFunc:
		typ, err = r.u32() // type index
	case KindTable:
		_, err = r.table()
	case KindMemory:
		_, err = r.limits("memory")
	case KindGlobal:
		err = r.globalType()
	case KindTag:
		var attr byte
		if attr, err = r.byte(); err == nil {
			if attr != 0 {
				err = fmt.Errorf("invalid tag attribute 0x%02x", attr)
			} else {
				_, err = r.u32() // type index
			}
		}
	default:
		err = fmt.Errorf("unknown import kind 0x%02x", byte(k))
	}
	return typ, err
}

func parseTables(r *reader, m *Module) error {
	n, err := r.count(3) // reftype, flag, min
	if err != nil {
		return fmt.Errorf("table section: %w", err)
	}
	for i := 0; i < n; i++ {
		t, err := r.table()
		if err != nil {
			return fmt.Errorf("table %d: %w", i, err)
		}
		m.Tables = append(m.Tables, t)
	}
	return nil
}

func parseMemories(r *reader, m *Module) error {
	n, err := r.count(2) // flag, min
	if err != nil {
		return fmt.Errorf("memory section: %w", err)
	}
	for i := 0; i < n; i++ {
		l, err := r.limits("memory")
		if err != nil {
			return fmt.Errorf("memory %d: %w", i, err)
		}
		m.Memories = append(m.Memories, l)
	}
	return nil
}

func parseExports(r *reader, m *Module) error {
	n, err := r.count(3) // name, kind, index
	if err != nil {
		return fmt.Errorf("export section: %w", err)
	}
	for i := 0; i < n; i++ {
		nm, err := r.name()
		if err != nil {
			return fmt.Errorf("export %d: name: %w", i, err)
		}
		k, err := r.byte()
		if err != nil {
			return fmt.Errorf("export %q: %w", nm, err)
		}
		if Kind(k) > KindTag {
			return fmt.Errorf("export %q: unknown export kind 0x%02x", nm, k)
		}
		if _, err := r.u32(); err != nil {
			return fmt.Errorf("export %q (%s): index: %w", nm, Kind(k), err)
		}
		m.Exports = append(m.Exports, Export{Name: nm, Kind: Kind(k)})
	}
	return nil
}

// appendU64 appends v as a minimal unsigned LEB128.
func appendU64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
