package wasmbin

import (
	"fmt"
	"slices"
)

// RenameImports returns a copy of wasm in which each function import for
// which rename returns true imports from the module name it returns
// instead, and how many imports it renamed. The import section is the only
// one re-encoded; every other byte is copied. With nothing to rename it
// returns wasm itself. The host uses it to serve an import from its own
// namespace in place of the one the plugin names (Extism's http_request,
// which mcpwasm replaces with its guarded client).
func RenameImports(wasm []byte, rename func(module, name string) (string, bool)) ([]byte, int, error) {
	if len(wasm) < 8 {
		return nil, 0, errEOF
	}
	r := &reader{b: wasm, off: 8}
	for r.left() > 0 {
		start := r.off
		id, err := r.byte()
		if err != nil {
			return nil, 0, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, 0, err
		}
		body, err := r.sub(uint64(size), "section "+sectionName(id))
		if err != nil {
			return nil, 0, err
		}
		if id != secImport {
			continue
		}
		enc, n, err := renameImportSection(body, rename)
		if err != nil || n == 0 {
			if n == 0 && err == nil {
				return wasm, 0, nil
			}
			return nil, 0, fmt.Errorf("import section: %w", err)
		}
		out := make([]byte, 0, len(wasm)+len(enc)-int(size)+8)
		out = append(out, wasm[:start]...)
		out = append(out, secImport)
		out = appendU64(out, uint64(len(enc)))
		out = append(out, enc...)
		out = append(out, wasm[r.off:]...)
		return out, n, nil
	}
	return wasm, 0, nil
}

// renameImportSection re-encodes an import section's body with renamed
// modules, copying every descriptor as it is.
func renameImportSection(r *reader, rename func(module, name string) (string, bool)) ([]byte, int, error) {
	count, err := r.count(4)
	if err != nil {
		return nil, 0, err
	}
	out := appendU64(nil, uint64(count))
	renamed := 0
	for i := 0; i < count; i++ {
		mod, err := r.name()
		if err != nil {
			return nil, 0, err
		}
		nm, err := r.name()
		if err != nil {
			return nil, 0, err
		}
		descStart := r.off
		k, err := r.byte()
		if err != nil {
			return nil, 0, err
		}
		if _, err := r.importDesc(Kind(k)); err != nil {
			return nil, 0, fmt.Errorf("import %q.%q: %w", mod, nm, err)
		}
		if Kind(k) == KindFunc {
			if to, ok := rename(mod, nm); ok && to != mod {
				mod = to
				renamed++
			}
		}
		out = appendName(out, mod)
		out = appendName(out, nm)
		out = append(out, r.b[descStart:r.off]...)
	}
	if r.left() != 0 {
		return nil, 0, fmt.Errorf("%d unexpected bytes after its contents", r.left())
	}
	return slices.Clip(out), renamed, nil
}

func appendName(b []byte, s string) []byte {
	b = appendU64(b, uint64(len(s)))
	return append(b, s...)
}
