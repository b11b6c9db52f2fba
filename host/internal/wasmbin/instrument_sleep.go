package wasmbin

import "fmt"

// Endless sleeps. WASI's poll_oneoff takes a u64 relative timeout, and
// wazero turns one of 2^63 ns or more into a negative duration, which it
// skips: the sleep returns at once, and a loop of such sleeps spins. With
// InterruptOptions.ClampSleeps the rewrite gives the module a small
// function that clamps every relative clock subscription of 2^63 ns or more
// to 2^63-1 in place and then calls the real poll_oneoff, and points every
// direct call of the import at it. The host's sleep then waits until the
// call's deadline. (A call of poll_oneoff through a table is left alone.)

const (
	wasiModule     = "wasi_snapshot_preview1"
	wasiPollOneoff = "poll_oneoff"
)

// readImportTypes records the type of each imported function, and the index
// and type of an imported poll_oneoff (to clamp, if ClampSleeps is set).
func (mi *moduleInfo) readImportTypes(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	var funcs uint32
	for i := uint32(0); i < n; i++ {
		mod, err := r.name()
		if err != nil {
			return err
		}
		name, err := r.name()
		if err != nil {
			return err
		}
		kind, err := r.byte()
		if err != nil {
			return err
		}
		if Kind(kind) >= KindTag {
			return fmt.Errorf("import kind 0x%02x is not supported", kind)
		}
		t, err := r.importDesc(Kind(kind))
		if err != nil {
			return err
		}
		if Kind(kind) != KindFunc {
			continue
		}
		mi.importTypes = append(mi.importTypes, t)
		if mi.opts.ClampSleeps && mod == wasiModule && name == wasiPollOneoff && int(t) < len(mi.types) && mi.typeParams[t] == 4 {
			mi.pollOneoff, mi.pollOneoffType, mi.clampSleeps = funcs, t, true
		}
		funcs++
	}
	return nil
}

// clampBody is the body of the clamping function, of poll_oneoff's type
// (in, out, nsubscriptions, nevents) -> errno, calling the import at
// index target. Subscriptions are 48 bytes: the event type (0: clock) at
// 8, the timeout (u64) at 24, the clock flags (u16, 0: relative) at 40. It
// stops at the first subscription outside memory, so its loop is bounded by
// the memory's size; poll_oneoff itself reports the fault.
func clampBody(target uint32) []byte {
	b := []byte{0x02, 0x01, 0x7F, 0x01, 0x7E, // locals: i i32, p i64
		0x02, 0x40, 0x03, 0x40, // block; loop
		0x20, 4, 0x20, 2, 0x4F, 0x0D, 1, // br_if exit (i >= nsubs)
		0x20, 0, 0xAD, 0x20, 4, 0xAD, 0x42, 48, 0x7E, 0x7C, 0x22, 5, // p = in + i*48
		0x42, 48, 0x7C, 0x3F, 0x00, 0xAD, 0x42, 16, 0x86, 0x56, 0x0D, 1, // br_if exit (p+48 > memory bytes)
		0x20, 5, 0xA7, 0x2D, 0x00, 0x08, 0x45, // kind == 0
		0x20, 5, 0xA7, 0x2F, 0x01, 0x28, 0x45, 0x71, // and flags == 0
		0x20, 5, 0xA7, 0x29, 0x03, 0x18, 0x42, 0x00, 0x53, 0x71, // and timeout >= 2^63
		0x04, 0x40, 0x20, 5, 0xA7, // if: store 2^63-1 at p+24
		0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00,
		0x37, 0x03, 0x18, 0x0B,
		0x20, 4, 0x41, 1, 0x6A, 0x21, 4, 0x0C, 0, // i++; br loop
		0x0B, 0x0B, // end loop; end block
		0x20, 0, 0x20, 1, 0x20, 2, 0x20, 3, 0x10} // the real poll_oneoff
	b = appendU64(b, uint64(target))
	b = append(b, 0x0B)
	return append(appendU64(nil, uint64(len(b))), b...)
}
