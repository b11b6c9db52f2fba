package wasmbin

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// readImportTypes counts function imports only: a global, table or memory
// import before poll_oneoff does not shift the index it clamps, and a tag
// import is refused.
func TestReadImportTypes(t *testing.T) {
	imp := func(mod, name string, kind byte, desc ...byte) []byte {
		return append(append(append(str(mod), str(name)...), kind), desc...)
	}
	imports := bytes.Join([][]byte{leb(5),
		imp("env", "g", byte(KindGlobal), 0x7F, 0),
		imp("env", "t", byte(KindTable), 0x70, 0, 1),
		imp("env", "f", byte(KindFunc), 0),
		imp("env", "m", byte(KindMemory), 0, 1),
		imp(wasiModule, wasiPollOneoff, byte(KindFunc), 1)}, nil)
	mi := &moduleInfo{types: [][]byte{nil, {0x7F}}, typeParams: []int{0, 4}, opts: InterruptOptions{ClampSleeps: true}}
	if err := mi.readImportTypes(&reader{b: imports}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mi.importTypes, []uint32{0, 1}) || !mi.clampSleeps || mi.pollOneoff != 1 || mi.pollOneoffType != 1 {
		t.Errorf("import types %v, clamp %v poll_oneoff %d of type %d; want [0 1], true, 1, 1",
			mi.importTypes, mi.clampSleeps, mi.pollOneoff, mi.pollOneoffType)
	}
	tag := append(leb(1), imp("env", "e", byte(KindTag), 0, 0)...)
	if err := (&moduleInfo{}).readImportTypes(&reader{b: tag}); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("a tag import: %v, want it refused", err)
	}
}
