package wasmbin

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

var errEOF = errors.New("unexpected end of module")

type reader struct {
	b   []byte
	off int
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errEOF
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) uleb(maxBits int) (uint64, error) {
	var v uint64
	for shift := 0; ; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if shift >= maxBits || (shift+7 > maxBits && uint64(c&0x7f)>>(maxBits-shift) != 0) {
			return 0, errors.New("integer too large")
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

func (r *reader) u32() (uint32, error) {
	v, err := r.uleb(32)
	return uint32(v), err
}

// count reads a vector length and checks that at least minSize bytes per
// element remain, so a hostile count cannot drive an allocation.
func (r *reader) count(minSize int) (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(len(r.b)-r.off) {
		return 0, fmt.Errorf("vector of %d entries cannot fit in the %d bytes left", n, len(r.b)-r.off)
	}
	return int(n), nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if uint64(n) > uint64(len(r.b)-r.off) {
		return "", errEOF
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	if !utf8.ValidString(s) {
		return "", errors.New("name is not valid UTF-8")
	}
	return s, nil
}

func (r *reader) limits(allow64 bool) (Limits, error) {
	flag, err := r.byte()
	if err != nil {
		return Limits{}, err
	}
	if flag > 0x07 {
		return Limits{}, fmt.Errorf("invalid limits flag 0x%02x", flag)
	}
	l := Limits{HasMax: flag&0x01 != 0, Is64: flag&0x04 != 0}
	if l.Is64 && !allow64 {
		return Limits{}, errors.New("64-bit limits are not allowed here")
	}
	bits := 32
	if l.Is64 {
		bits = 64
	}
	if l.Min, err = r.uleb(bits); err != nil {
		return Limits{}, err
	}
	if l.HasMax {
		if l.Max, err = r.uleb(bits); err != nil {
			return Limits{}, err
		}
		if l.Max < l.Min {
			return Limits{}, fmt.Errorf("limits: maximum %d is below minimum %d", l.Max, l.Min)
		}
	}
	return l, nil
}

func (r *reader) table() (Table, error) {
	et, err := r.byte()
	if err != nil {
		return Table{}, err
	}
	if et != 0x70 && et != 0x6F {
		return Table{}, fmt.Errorf("table element type 0x%02x is not supported (funcref or externref only)", et)
	}
	l, err := r.limits(true)
	if err != nil {
		return Table{}, fmt.Errorf("table: %w", err)
	}
	return Table{ElemType: et, Limits: l}, nil
}

func parseImports(r *reader, m *Module) error {
	n, err := r.count(4)
	if err != nil {
		return fmt.Errorf("import section: %w", err)
	}
	for i := 0; i < n; i++ {
		mod, err := r.name()
		if err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
		nm, err := r.name()
		if err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
		k, err := r.byte()
		if err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
		switch Kind(k) {
		case KindFunc:
			_, err = r.u32()
		case KindTable:
			_, err = r.table()
		case KindMemory:
			_, err = r.limits(true)
		case KindGlobal:
			if _, err = r.byte(); err == nil {
				_, err = r.byte()
			}
		case KindTag:
			if _, err = r.byte(); err == nil {
				_, err = r.u32()
			}
		default:
			err = fmt.Errorf("unknown import kind 0x%02x", k)
		}
		if err != nil {
			return fmt.Errorf("import %q.%q: %w", mod, nm, err)
		}
		m.Imports = append(m.Imports, Import{Module: mod, Name: nm, Kind: Kind(k)})
	}
	return nil
}

func parseTables(r *reader, m *Module) error {
	n, err := r.count(3)
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
	n, err := r.count(2)
	if err != nil {
		return fmt.Errorf("memory section: %w", err)
	}
	for i := 0; i < n; i++ {
		l, err := r.limits(true)
		if err != nil {
			return fmt.Errorf("memory %d: %w", i, err)
		}
		m.Memories = append(m.Memories, l)
	}
	return nil
}

func parseExports(r *reader, m *Module) error {
	n, err := r.count(3)
	if err != nil {
		return fmt.Errorf("export section: %w", err)
	}
	for i := 0; i < n; i++ {
		nm, err := r.name()
		if err != nil {
			return fmt.Errorf("export %d: %w", i, err)
		}
		k, err := r.byte()
		if err != nil {
			return fmt.Errorf("export %q: %w", nm, err)
		}
		if _, err := r.u32(); err != nil {
			return fmt.Errorf("export %q: %w", nm, err)
		}
		m.Exports = append(m.Exports, Export{Name: nm, Kind: Kind(k)})
	}
	return nil
}

func appendU32(b []byte, v uint32) []byte { return appendU64(b, uint64(v)) }

func appendU64(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}
