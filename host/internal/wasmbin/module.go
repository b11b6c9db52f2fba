package wasmbin

import (
	"fmt"
	"strings"
)

// Kind is the kind of an import or export, as encoded in the binary.
type Kind byte

// The import and export kinds.
const (
	KindFunc   Kind = 0
	KindTable  Kind = 1
	KindMemory Kind = 2
	KindGlobal Kind = 3
	KindTag    Kind = 4 // exception-handling proposal
)

// String returns the kind's name in the text format: func, table, memory,
// global or tag.
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
	return fmt.Sprintf("kind(0x%02x)", byte(k))
}

// Import is one entry of the import section.
type Import struct {
	Module, Name string
	Kind         Kind
	// Type is a function import's type index (into Module.Types).
	Type uint32
}

// FuncType is a function type: its parameter and result value types, as
// their binary bytes (0x7F i32, 0x7E i64, 0x7D f32, 0x7C f64, ...).
type FuncType struct {
	Params, Results []byte
}

// String writes the type as "(i64, i64) -> i64".
func (t FuncType) String() string {
	names := func(b []byte) string {
		var out []string
		for _, v := range b {
			out = append(out, valTypeName(v))
		}
		return strings.Join(out, ", ")
	}
	s := "(" + names(t.Params) + ")"
	switch len(t.Results) {
	case 0:
		return s
	case 1:
		return s + " -> " + names(t.Results)
	}
	return s + " -> (" + names(t.Results) + ")"
}

func valTypeName(b byte) string {
	switch b {
	case 0x7F:
		return "i32"
	case 0x7E:
		return "i64"
	case 0x7D:
		return "f32"
	case 0x7C:
		return "f64"
	case 0x7B:
		return "v128"
	case typeFuncref:
		return "funcref"
	case typeExternref:
		return "externref"
	}
	return fmt.Sprintf("0x%02x", b)
}

// ImportType returns a function import's type, and false for another kind
// of import or a type index out of range.
func (m *Module) ImportType(imp Import) (FuncType, bool) {
	if imp.Kind != KindFunc || int(imp.Type) >= len(m.Types) {
		return FuncType{}, false
	}
	return m.Types[imp.Type], true
}

// Export is one entry of the export section.
type Export struct {
	Name string
	Kind Kind
}

// Limits are a memory's (in pages) or a table's (in elements) size bounds.
type Limits struct {
	Min, Max uint64 // Max is meaningful only if HasMax
	HasMax   bool
	Shared   bool // threads proposal; memories only
	Is64     bool // memory64 / table64: 64-bit index type
}

// Table is a table defined by the module.
type Table struct {
	ElemType byte // 0x70 funcref, 0x6F externref
	Limits
}

// Module is what Inspect found. The slices are in binary order and nil
// when empty.
type Module struct {
	Types          []FuncType
	Imports        []Import
	Exports        []Export
	Memories       []Limits // defined memories, imported ones excluded
	Tables         []Table  // defined tables, imported ones excluded
	CustomSections []string // names of the custom sections, in order
}
