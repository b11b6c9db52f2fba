package wasmbin

import (
	"errors"
	"fmt"
	"strings"
)

// Interruption points.
//
// wazero stops a guest at its deadline only if the runtime is built with
// WithCloseOnContextDone, which checks at loop headers by leaving native
// code for Go at each one: tight loops run up to 25 times slower, and code
// without loops (a deep call tree) is never stopped and blocks Go's garbage
// collector. Instrument instead gives the module its own cheap checks, so
// the host can turn wazero's off.
//
// The module gains one mutable i32 global, the fuel, and one imported host
// function, the poll, which returns a fresh amount of fuel. Fuel is spent
// in units of roughly one instruction:
//
//   - at the entry of every function that loops, calls other non-trivial
//     functions or is large, by the instructions it runs outside its loops;
//   - at every loop header, by the instructions one iteration runs at that
//     loop's own level, plus the known cost of the leaf functions it calls.
//
// When the fuel runs out the poll is called. A function without loops,
// without calls to other instrumented functions and below leafMax
// instructions runs in bounded time and is left alone; its callers pay its
// size. A function that loops keeps the fuel in a local (a register), so
// a loop iteration costs a subtract and a branch; the local is written
// back to the global around calls that may spend fuel themselves and when
// the function ends.
//
// So the number of instructions a guest runs between two polls is bounded
// by the fuel, up to the estimate made for indirect calls (indirectCost,
// against leaves of at most leafMax instructions), host calls
// (importCost) and bulk memory operations (one unit for any length).

// InterruptOptions configures Instrument.
type InterruptOptions struct {
	// Module and Name are the import of the poll function: a host function
	// of type [] -> [i32] that checks the deadline, may yield, and returns
	// the fuel to run on (or does not return, to stop the guest).
	Module, Name string
	// GrowFailed, if set, names a second import from Module, of type
	// [] -> [], called whenever memory.grow fails: a trap that follows is
	// then known to come from running out of memory.
	GrowFailed string
	// StackLimit, if positive, bounds the guest's call stack: every
	// function that calls another adds an estimate of its frame's size
	// (frameSize) to a depth global at entry and takes it off at exit, and
	// when the depth passes StackLimit it calls StackExhausted, a third
	// import of type [] -> [] that must not return.
	StackLimit     int32
	StackExhausted string
	// ClampSleeps makes endless WASI sleeps last (instrument_sleep.go).
	ClampSleeps bool
	// Fuel is the fuel a fresh instance starts with, in units of about one
	// instruction. The poll's return value is the fuel after each poll.
	Fuel int32
}

const (
	leafMax      = 256  // largest function left unchecked, in instructions
	leafLocals   = 64   // most locals (parameters included) of a function left unchecked
	indirectCost = 32   // units charged for a call_indirect, on top of 1
	importCost   = 1024 // units charged for a call to an import (a host function)
)

// ErrNotInstrumentable wraps every reason Instrument refuses a module.
var ErrNotInstrumentable = errors.New("cannot add interruption points")

// section is one section of a module, as found in the binary.
type section struct {
	id   byte
	name string // custom sections only
	body []byte
}

// moduleInfo is what the rewrite needs to know about the module.
type moduleInfo struct {
	types       [][]byte // each function type's result types
	typeParams  []int
	funcTypes   []uint32 // type index of each defined function
	importTypes []uint32 // type index of each imported function
	impFuncs    uint32   // imported functions
	impGlobals  uint32
	defGlobals  uint32
	newTypes    [][]byte // result lists of block types appended to the type section
	pollType    uint32   // the poll's type; the grow hook's is pollType+1
	pollFunc    uint32   // the poll's function index (= impFuncs)
	growFunc    uint32   // the grow hook's, if GrowFailed is set
	stackFunc   uint32   // the stack hook's, if StackLimit is set
	added       uint32   // imports added: 1 to 3
	fuelGlobal  uint32
	opts        InterruptOptions
	leafCost    []int32 // per defined function: its size if it is left unchecked, else -1
	// poll_oneoff, when clamped: the import's index and type, and the index
	// of the function that clamps its timeouts
	clampSleeps                bool
	pollOneoff, pollOneoffType uint32
	clampFunc                  uint32
	hasMemory                  bool
}

// Instrument returns wasm with interruption points (see above). wasm must
// be a module Preflight accepted. A module with instructions the decoder
// does not know, or which already imports opts.Module, is refused.
func Instrument(wasm []byte, opts InterruptOptions) ([]byte, error) {
	out, err := instrument(wasm, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotInstrumentable, err)
	}
	return out, nil
}

func instrument(wasm []byte, opts InterruptOptions) ([]byte, error) {
	if opts.Name == "" || (opts.StackLimit > 0 && opts.StackExhausted == "") {
		return nil, errors.New("the options name no poll, or a stack limit without its hook")
	}
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	mi, code, err := readModule(secs, opts)
	if err != nil {
		return nil, err
	}
	mi.pollType = uint32(len(mi.types))
	mi.pollFunc, mi.added = mi.impFuncs, 1
	if opts.GrowFailed != "" {
		mi.growFunc = mi.impFuncs + mi.added
		mi.added++
	}
	if opts.StackLimit > 0 {
		mi.stackFunc = mi.impFuncs + mi.added
		mi.added++
	}
	mi.fuelGlobal = mi.impGlobals + mi.defGlobals

	bodies, err := mi.splitCode(code)
	if err != nil {
		return nil, fmt.Errorf("code section: %w", err)
	}
	if err := mi.classify(bodies); err != nil {
		return nil, err
	}
	mi.clampSleeps = mi.clampSleeps && mi.hasMemory && len(bodies) > 0
	mi.clampFunc = mi.impFuncs + mi.added + uint32(len(bodies))
	n := uint64(len(bodies))
	if mi.clampSleeps {
		n++
	}
	newCode := appendU64(make([]byte, 0, len(code)+len(code)/4), n) // the rewrite adds about a tenth
	var buf []instr
	var body []byte
	for i, b := range bodies {
		body, buf, err = mi.rewriteBody(body[:0], b, uint32(i), buf)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", mi.impFuncs+uint32(i), err)
		}
		newCode = appendU64(newCode, uint64(len(body)))
		newCode = append(newCode, body...)
	}
	if mi.clampSleeps {
		newCode = append(newCode, clampBody(mi.pollOneoff)...)
	}
	return mi.assemble(wasm[:8], secs, newCode)
}

// readModule reads from a module's sections what the rewrite and the frame
// estimates need (types, imports, function types, memories, globals) and
// returns the code section's body.
func readModule(secs []section, opts InterruptOptions) (*moduleInfo, []byte, error) {
	var err error
	mi := &moduleInfo{opts: opts}
	var code []byte
	for _, s := range secs {
		r := &reader{b: s.body}
		switch s.id {
		case 1:
			err = mi.readTypes(r)
		case 2:
			if err = mi.readImports(r); err == nil {
				err = mi.readImportTypes(&reader{b: s.body})
			}
		case 5:
			var n int
			n, err = r.count(1)
			mi.hasMemory = n > 0
		case 3:
			_, err = r.vec("function", func(int) error {
				t, err := r.u32()
				mi.funcTypes = append(mi.funcTypes, t)
				return err
			})
		case 6:
			var n int
			n, err = r.count(3)
			mi.defGlobals = uint32(n)
		case 10:
			code = s.body
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s section: %w", sectionName(s.id), err)
		}
	}
	return mi, code, nil
}

// splitSections splits a module into its sections.
func splitSections(wasm []byte) ([]section, error) {
	if len(wasm) < 8 {
		return nil, errEOF
	}
	r := &reader{b: wasm, off: 8}
	var secs []section
	for r.left() > 0 {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		sub, err := r.sub(uint64(n), "section "+sectionName(id))
		if err != nil {
			return nil, err
		}
		s := section{id: id, body: sub.b[sub.off:]}
		if id == 0 {
			if s.name, err = sub.name(); err != nil {
				return nil, err
			}
		}
		secs = append(secs, s)
	}
	return secs, nil
}

func (mi *moduleInfo) readTypes(r *reader) error {
	_, err := r.vec("type", func(int) error {
		if form, err := r.byte(); err != nil || form != 0x60 {
			return fmt.Errorf("only function types are supported (form 0x%02x)", form)
		}
		params, err := r.count(1)
		if err != nil {
			return err
		}
		for i := 0; i < params; i++ {
			if err := r.valType(); err != nil {
				return err
			}
		}
		results, err := r.count(1)
		if err != nil {
			return err
		}
		start := r.off
		for i := 0; i < results; i++ {
			if err := r.valType(); err != nil {
				return err
			}
		}
		mi.types = append(mi.types, r.b[start:r.off])
		mi.typeParams = append(mi.typeParams, params)
		return nil
	})
	return err
}

func (mi *moduleInfo) readImports(r *reader) error {
	m := &Module{}
	if err := parseImports(r, m); err != nil {
		return err
	}
	for _, imp := range m.Imports {
		switch {
		case imp.Module == mi.opts.Module:
			return fmt.Errorf("the module imports %q from %q, a namespace reserved for the host", imp.Name, imp.Module)
		case imp.Kind == KindFunc:
			mi.impFuncs++
		case imp.Kind == KindGlobal:
			mi.impGlobals++
		}
	}
	return nil
}

// splitCode returns the bodies of the code section.
func (mi *moduleInfo) splitCode(code []byte) ([][]byte, error) {
	r := &reader{b: code}
	var bodies [][]byte
	if code != nil {
		_, err := r.vec("function body", func(int) error {
			n, err := r.u32()
			if err != nil {
				return err
			}
			sub, err := r.sub(uint64(n), "function body")
			if err == nil {
				bodies = append(bodies, sub.b[sub.off:])
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(bodies) != len(mi.funcTypes) {
		return nil, fmt.Errorf("%d function bodies for %d declared functions", len(bodies), len(mi.funcTypes))
	}
	for _, t := range mi.funcTypes {
		if int(t) >= len(mi.types) {
			return nil, fmt.Errorf("function type %d is not in the type section", t)
		}
	}
	return bodies, nil
}

// shift maps a function index of the original module to the rewritten one,
// where the poll import comes after the original imports.
func (mi *moduleInfo) shift(idx uint32) uint32 {
	if idx >= mi.impFuncs {
		return idx + mi.added
	}
	return idx
}

// target maps a function index used as a call target or a reference:
// like shift, except that an imported poll_oneoff being clamped becomes the
// clamping function, so calls through tables are clamped too.
func (mi *moduleInfo) target(idx uint32) uint32 {
	if mi.clampSleeps && idx == mi.pollOneoff {
		return mi.clampFunc
	}
	return mi.shift(idx)
}

// blockTypeFor returns the block type encoding a function's results, with
// no parameters, appending a type when there are several.
func (mi *moduleInfo) blockTypeFor(results []byte) []byte {
	switch len(results) {
	case 0:
		return []byte{0x40}
	case 1:
		return results
	}
	for i, t := range mi.newTypes {
		if string(t) == string(results) {
			return appendU64(nil, uint64(mi.pollType+2+uint32(i)))
		}
	}
	mi.newTypes = append(mi.newTypes, results)
	return appendU64(nil, uint64(mi.pollType+1+uint32(len(mi.newTypes))))
}

// assemble writes the rewritten module: the original sections with function
// indices shifted, the poll import, the fuel global and new types added,
// the new code, and debugging sections that point into the old code dropped.
func (mi *moduleInfo) assemble(header []byte, secs []section, code []byte) ([]byte, error) {
	out := append([]byte(nil), header...)
	have := map[byte]bool{}
	for _, s := range secs {
		have[s.id] = true
	}
	emit := func(id byte, body []byte) {
		out = append(out, id)
		out = appendU64(out, uint64(len(body)))
		out = append(out, body...)
	}
	// Sections the rewrite needs that the module lacks are created empty,
	// in their place in the section order.
	pending := []byte{1, 2, 6}
	for _, s := range append(secs, section{id: 0xFF}) {
		for len(pending) > 0 && s.id != 0 && (s.id == 0xFF || rank(s.id) > rank(pending[0])) {
			if !have[pending[0]] {
				body, err := mi.rewriteSection(section{id: pending[0], body: []byte{0}})
				if err != nil {
					return nil, err
				}
				emit(pending[0], body)
			}
			pending = pending[1:]
		}
		switch {
		case s.id == 0xFF:
		case s.id == 10:
			emit(10, code)
		case s.id == 0 && dropCustom(s.name):
		default:
			body, err := mi.rewriteSection(s)
			if err != nil {
				return nil, fmt.Errorf("%s section: %w", sectionName(s.id), err)
			}
			if body != nil {
				emit(s.id, body)
			}
		}
	}
	return out, nil
}

// rank is a section's place in the required order (unknown ids last).
func rank(id byte) int {
	if int(id) < len(sectionRank) {
		return sectionRank[id]
	}
	return len(sectionRank)
}

// dropCustom says whether a custom section describes code offsets, which
// the rewrite changes.
func dropCustom(name string) bool {
	return strings.HasPrefix(name, ".debug_") || name == "sourceMappingURL" || name == "external_debug_info"
}
