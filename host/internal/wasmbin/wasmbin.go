// Package wasmbin is the load-time preflight of an untrusted WebAssembly
// binary. It vets a core module before wazero sees it: it reports the
// imports, exports, memories, tables and custom section names, and rewrites
// the table section so that every table has a maximum, because wazero
// bounds table.grow only by a table's declared maximum, not by the memory
// limit. It also merges data segments where that provably changes nothing
// but the cost of instantiation (see datasegs.go). Instrument
// (instrument.go) then rewrites the code itself with interruption points
// and a stack bound, so a guest can be stopped at its deadline.
//
// Input is untrusted: every count and length is checked against the bytes
// actually present, nothing is allocated in proportion to a claimed size,
// and no input makes it panic. That is also checked for every section
// wazero's decoder reads, because wazero preallocates from claimed sizes
// (see sections.go). It is not a validator: types, indices and function
// bodies are left to wazero.
package wasmbin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Section ids.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13 // exception handling
)

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count", "tag"}

func sectionName(id byte) string {
	if int(id) < len(sectionNames) {
		return sectionNames[id]
	}
	return fmt.Sprintf("unknown (id %d)", id)
}

// sectionRank gives each known non-custom section id its place in the order
// the spec requires (the tag section sits between memory and global, data
// count between element and code); 0 means unknown.
var sectionRank = [...]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

// Inspect parses wasm and reports its imports, exports, memories, tables and
// custom section names. It fails on a malformed header, unknown, repeated
// or misordered sections, any section (and the "name" custom section) whose
// layout is malformed or whose counts and lengths exceed its bytes, function
// and code (or data count and data) sections that disagree, a function
// declaring more than 50,000 locals or a module more locals than it has
// bytes, and features outside mcpwasm's ABI (function references, GC,
// exnref). So a truncated module is refused unless the cut leaves a
// complete module of its own.
func Inspect(wasm []byte) (*Module, error) {
	m, _, err := parse(wasm)
	return m, err
}

// Policy says what Preflight accepts. Its zero value accepts no imports and
// no non-empty tables.
type Policy struct {
	// AllowedNamespaces are the only import module names allowed.
	AllowedNamespaces []string
	// MaxTableElements caps every defined table: a table without a maximum,
	// or with a larger one, is given this maximum. A table whose minimum
	// exceeds it is refused.
	MaxTableElements uint32
	// MaxTotalTableElements caps the sum of all defined tables' maximums,
	// so that many tables cannot add up to what one may not have. Tables
	// whose minimums together exceed it are refused; otherwise, if their
	// maximums (after MaxTableElements) add up to more, the room above the
	// minimums is shared out (see capTables). 0 means no bound on the sum.
	MaxTotalTableElements uint64
}

// Preflight checks wasm against p: it must parse (see Inspect), import only
// from p.AllowedNamespaces, import no memory and no table, and define no
// table whose minimum exceeds p.MaxTableElements, nor tables whose minimums
// add up to more than p.MaxTotalTableElements. It returns a copy of wasm
// in which every defined table has a maximum of at most p.MaxTableElements,
// the maximums add up to at most p.MaxTotalTableElements, and the Module of
// that copy. In that copy, data segments that lie less
// than 4 KiB apart are also merged into one, zeros filling the gaps, when
// that provably leaves instantiation unchanged: the same memory contents,
// and failure exactly when the original fails (see datasegs.go for the
// conditions; standard Go emits tens of thousands of segments, which wazero
// evaluates one by one on every instantiation). Only the table section
// (if some table needed a new maximum) and the data section (if segments
// merged, and then a data count section's count) are re-encoded, with
// minimal LEB128s; every other byte is copied unchanged. wasm itself is never modified.
func Preflight(wasm []byte, p Policy) (patched []byte, m *Module, err error) {
	m, lay, err := parse(wasm)
	if err != nil {
		return nil, nil, err
	}
	for _, imp := range m.Imports {
		if !slices.Contains(p.AllowedNamespaces, imp.Module) {
			allowed := "nothing"
			if len(p.AllowedNamespaces) > 0 {
				allowed = "only from " + strings.Join(p.AllowedNamespaces, ", ")
			}
			return nil, nil, fmt.Errorf("import %q.%q (%s) is from namespace %q; plugins may import %s",
				imp.Module, imp.Name, imp.Kind, imp.Module, allowed)
		}
		switch imp.Kind {
		case KindMemory:
			return nil, nil, fmt.Errorf("import %q.%q (memory): plugins must define their own memory, not import one", imp.Module, imp.Name)
		case KindTable:
			return nil, nil, fmt.Errorf("import %q.%q (table): plugins must define their own tables, not import one", imp.Module, imp.Name)
		}
	}
	rewrite, err := capTables(m.Tables, uint64(p.MaxTableElements), p.MaxTotalTableElements)
	if err != nil {
		return nil, nil, err
	}
	// The patches, in section order (the table section precedes data).
	type patch struct {
		at   span
		id   byte
		body []byte
	}
	var patches []patch
	size := len(wasm) + 16
	if rewrite {
		body := encodeTables(m.Tables)
		patches = append(patches, patch{lay.table, secTable, body})
		size += len(body)
	}
	// A data count section hides the segments' number and order from code
	// only if no instruction names a segment (datasegs.go); its count
	// then follows the merge.
	countFree := !lay.hasDataCount || noSegmentNamed(wasm, lay.code)
	if body, n, ok := coalesceData(wasm, lay.data, !countFree, m.Memories); ok {
		if lay.hasDataCount {
			patches = append(patches, patch{lay.dataCount, secDataCount, appendU64(nil, uint64(n))})
		}
		patches = append(patches, patch{lay.data, secData, body})
		size += len(body)
	}
	if len(patches) == 0 {
		return slices.Clone(wasm), m, nil
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, p := range patches {
		out = append(out, wasm[prev:p.at.start]...)
		out = append(out, p.id)
		out = appendU64(out, uint64(len(p.body)))
		out = append(out, p.body...)
		prev = p.at.end
	}
	out = append(out, wasm[prev:]...)
	return out, m, nil
}

// encodeTables encodes a table section's contents. Every table gets a
// maximum; 64-bit tables stay 64-bit.
func encodeTables(tables []Table) []byte {
	body := appendU64(nil, uint64(len(tables)))
	for _, t := range tables {
		flag := byte(limHasMax)
		if t.Is64 {
			flag |= limIs64
		}
		body = append(body, t.ElemType, flag)
		body = appendU64(body, t.Min)
		body = appendU64(body, t.Max)
	}
	return body
}

// span is the [start, end) of a whole section, id byte included.
type span struct{ start, end int }

// layout is where parse found what Preflight may rewrite.
type layout struct {
	table, data  span // the table and data sections' spans, or zero
	dataCount    span // the data count section's span, or zero
	code         span // the code section's span, or zero
	hasDataCount bool // the module has a data count section
}

// parse walks the sections.
func parse(wasm []byte) (*Module, layout, error) {
	if len(wasm) < 4 || string(wasm[:4]) != "\x00asm" {
		return nil, layout{}, errors.New("not a WebAssembly module (bad magic number)")
	}
	if len(wasm) < 8 {
		return nil, layout{}, errors.New("not a WebAssembly module (truncated header)")
	}
	if v := wasm[4:8]; string(v) != "\x01\x00\x00\x00" {
		if v[2] != 0 || v[3] != 0 {
			return nil, layout{}, errors.New("a WebAssembly component, not a core module: mcpwasm loads core modules (binary version 1)")
		}
		return nil, layout{}, fmt.Errorf("unsupported WebAssembly binary version %d (mcpwasm loads version 1)", uint32(v[0])|uint32(v[1])<<8)
	}
	m := &Module{}
	var lay layout
	var counts [len(sectionRank)]int // entries of the function, code and data sections
	var dataCount uint64
	localsLeft := localsBudget(len(wasm))
	r := &reader{b: wasm, off: 8}
	lastRank := 0
	for r.left() > 0 {
		start := r.off
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil {
			return nil, layout{}, fmt.Errorf("%s section at offset %d: size: %w", sectionName(id), start, err)
		}
		if uint64(size) > uint64(r.left()) {
			return nil, layout{}, fmt.Errorf("%s section at offset %d: its %d bytes run past the end of the module (%d left)", sectionName(id), start, size, r.left())
		}
		body := &reader{b: r.b[:r.off+int(size)], off: r.off}
		r.off += int(size)
		if id != secCustom {
			if int(id) >= len(sectionRank) || sectionRank[id] == 0 {
				return nil, layout{}, fmt.Errorf("unknown section id %d at offset %d", id, start)
			}
			if sectionRank[id] <= lastRank {
				return nil, layout{}, fmt.Errorf("%s section at offset %d is out of order or repeated", sectionName(id), start)
			}
			lastRank = sectionRank[id]
		}
		var n int
		switch id {
		case secCustom:
			var name string
			if name, err = body.name(); err == nil {
				m.CustomSections = append(m.CustomSections, name)
				if name == "name" {
					if err = parseNameSection(body); err != nil {
						err = fmt.Errorf("name section: %w", err)
					}
				}
			}
			body.off = len(body.b) // other custom sections are not ours to check
		case secType:
			err = parseTypes(body, m)
		case secImport:
			err = parseImports(body, m)
		case secFunction:
			n, err = body.vec("function", func(int) error { return body.skipU32() })
		case secTable:
			lay.table = span{start, r.off}
			err = parseTables(body, m)
		case secMemory:
			err = parseMemories(body, m)
		case secTag:
			err = parseTags(body)
		case secGlobal:
			err = parseGlobals(body)
		case secExport:
			err = parseExports(body, m)
		case secStart:
			err = body.skipU32()
		case secElement:
			err = parseElems(body)
		case secDataCount:
			dataCount, err = body.uleb(32)
			lay.hasDataCount = true
			lay.dataCount = span{start, r.off}
		case secCode:
			lay.code = span{start, r.off}
			n, err = parseCode(body, &localsLeft)
		case secData:
			lay.data = span{start, r.off}
			n, err = parseData(body)
		}
		counts[id] = n
		if err != nil {
			return nil, layout{}, fmt.Errorf("%s section at offset %d: %w", sectionName(id), start, err)
		}
		if body.left() != 0 {
			return nil, layout{}, fmt.Errorf("%s section at offset %d: %d unexpected bytes after its contents", sectionName(id), start, body.left())
		}
	}
	if counts[secFunction] != counts[secCode] {
		return nil, layout{}, fmt.Errorf("%d functions declared but %d function bodies present (truncated module?)", counts[secFunction], counts[secCode])
	}
	if lay.hasDataCount && dataCount != uint64(counts[secData]) {
		return nil, layout{}, fmt.Errorf("data count section says %d data segments but %d are present (truncated module?)", dataCount, counts[secData])
	}
	return m, lay, nil
}

// Exports reads only a module's export section: a quick look, in
// microseconds where Inspect takes milliseconds on a large module, to learn
// what a plugin could declare before it loads. It checks the header and the
// section sizes but nothing else, so a module it accepts may still fail
// Inspect.
func Exports(wasm []byte) ([]Export, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module (bad magic number)")
	}
	r := &reader{b: wasm, off: 8}
	for r.left() > 0 {
		start := r.off
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("%s section at offset %d: size: %w", sectionName(id), start, err)
		}
		if uint64(size) > uint64(r.left()) {
			return nil, fmt.Errorf("%s section at offset %d: its %d bytes run past the end of the module (%d left)", sectionName(id), start, size, r.left())
		}
		body := &reader{b: r.b[:r.off+int(size)], off: r.off}
		r.off += int(size)
		if id == secExport {
			m := &Module{}
			if err := parseExports(body, m); err != nil {
				return nil, fmt.Errorf("export section at offset %d: %w", start, err)
			}
			return m.Exports, nil
		}
	}
	return nil, nil
}
