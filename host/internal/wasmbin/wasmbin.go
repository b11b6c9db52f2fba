// Package wasmbin reads just enough of a WebAssembly binary to vet it before
// any of it runs: its imports, exports, memories and tables. It can rewrite
// the table section so that every table has a maximum, because table growth
// is not bounded by the runtime's memory limit.
//
// Input is untrusted: every count and length is checked against the bytes
// actually present, and nothing is allocated in proportion to a claimed size.
package wasmbin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Kind is the kind of an import or export.
type Kind byte

// Kinds, as encoded in the binary.
const (
	KindFunc   Kind = 0
	KindTable  Kind = 1
	KindMemory Kind = 2
	KindGlobal Kind = 3
	KindTag    Kind = 4
)

func (k Kind) String() string {
	switch k {
	case KindFunc:
		return "func"
	case KindTable:
		return "table"
	case KindMemory:
		return "memory"
	case KindGlobal:
		return "global"
	case KindTag:
		return "tag"
	}
	return fmt.Sprintf("kind(%d)", byte(k))
}

// Import is one entry of the import section.
type Import struct {
	Module, Name string
	Kind         Kind
}

// Export is one entry of the export section.
type Export struct {
	Name string
	Kind Kind
}

// Limits are a memory's or table's size bounds.
type Limits struct {
	Min, Max uint64
	HasMax   bool
	Is64     bool
}

// Table is a table defined by the module.
type Table struct {
	ElemType byte // 0x70 funcref, 0x6F externref
	Limits
}

// Module is what Inspect found.
type Module struct {
	Imports  []Import
	Exports  []Export
	Memories []Limits
	Tables   []Table
}

// Section ids.
const (
	secCustom = 0
	secImport = 2
	secTable  = 4
	secMemory = 5
	secExport = 7
	secMax    = 13 // tag section (exception handling)
)

// Inspect parses a module's imports, exports, memories and tables.
func Inspect(wasm []byte) (*Module, error) {
	m, _, err := parse(wasm)
	return m, err
}

// Policy says what Preflight accepts.
type Policy struct {
	// AllowedNamespaces are the only import modules allowed.
	AllowedNamespaces []string
	// MaxTableElements caps every table: tables without a maximum, or with a
	// larger one, get this maximum. A table whose minimum exceeds it is refused.
	MaxTableElements uint32
}

// Preflight checks wasm against p and returns a copy whose table section
// gives every table a maximum of at most p.MaxTableElements. Every other
// byte is copied unchanged.
func Preflight(wasm []byte, p Policy) ([]byte, *Module, error) {
	m, tableSec, err := parse(wasm)
	if err != nil {
		return nil, nil, err
	}
	for _, imp := range m.Imports {
		if !slices.Contains(p.AllowedNamespaces, imp.Module) {
			return nil, nil, fmt.Errorf("import %q.%q (%s) is from namespace %q; plugins may import only from %s",
				imp.Module, imp.Name, imp.Kind, imp.Module, strings.Join(p.AllowedNamespaces, ", "))
		}
		switch imp.Kind {
		case KindMemory:
			return nil, nil, fmt.Errorf("import %q.%q: plugins must define their own memory, not import one", imp.Module, imp.Name)
		case KindTable:
			return nil, nil, fmt.Errorf("import %q.%q: plugins must define their own tables, not import one", imp.Module, imp.Name)
		}
	}
	if tableSec == nil {
		return slices.Clone(wasm), m, nil
	}
	cap := uint64(p.MaxTableElements)
	var body []byte
	body = appendU32(body, uint32(len(m.Tables)))
	for i, t := range m.Tables {
		if t.Min > cap {
			return nil, nil, fmt.Errorf("table %d starts with %d elements, more than the limit of %d", i, t.Min, cap)
		}
		max := t.Max
		if !t.HasMax || max > cap {
			max = cap
		}
		body = append(body, t.ElemType)
		if t.Is64 {
			body = append(body, 0x05)
			body = appendU64(body, t.Min)
			body = appendU64(body, max)
		} else {
			body = append(body, 0x01)
			body = appendU32(body, uint32(t.Min))
			body = appendU32(body, uint32(max))
		}
		m.Tables[i].Max, m.Tables[i].HasMax = max, true
	}
	out := make([]byte, 0, len(wasm)+16)
	out = append(out, wasm[:tableSec[0]]...)
	out = append(out, secTable)
	out = appendU32(out, uint32(len(body)))
	out = append(out, body...)
	out = append(out, wasm[tableSec[1]:]...)
	return out, m, nil
}

// parse walks the sections. tableSec is the [start, end) of the whole table
// section (id byte included), or nil.
func parse(wasm []byte) (*Module, []int, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, nil, errors.New("not a WebAssembly module (bad magic number)")
	}
	if string(wasm[4:8]) != "\x01\x00\x00\x00" {
		return nil, nil, errors.New("not a core WebAssembly module of version 1 (a component? mcpwasm loads core modules)")
	}
	m := &Module{}
	var tableSec []int
	r := &reader{b: wasm, off: 8}
	seen := map[byte]bool{}
	for r.off < len(r.b) {
		start := r.off
		id, err := r.byte()
		if err != nil {
			return nil, nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, nil, fmt.Errorf("section %d: %w", id, err)
		}
		if uint64(size) > uint64(len(r.b)-r.off) {
			return nil, nil, fmt.Errorf("section %d at offset %d: length %d runs past the end of the file", id, start, size)
		}
		body := &reader{b: r.b[:r.off+int(size)], off: r.off}
		r.off += int(size)
		if id > secMax {
			return nil, nil, fmt.Errorf("unknown section id %d at offset %d", id, start)
		}
		if id != secCustom {
			if seen[id] {
				return nil, nil, fmt.Errorf("section %d appears twice", id)
			}
			seen[id] = true
		}
		switch id {
		case secImport:
			err = parseImports(body, m)
		case secTable:
			tableSec = []int{start, r.off}
			err = parseTables(body, m)
		case secMemory:
			err = parseMemories(body, m)
		case secExport:
			err = parseExports(body, m)
		}
		if err != nil {
			return nil, nil, err
		}
		if id == secImport || id == secTable || id == secMemory || id == secExport {
			if body.off != len(body.b) {
				return nil, nil, fmt.Errorf("section %d: %d unexpected trailing bytes", id, len(body.b)-body.off)
			}
		}
	}
	return m, tableSec, nil
}
