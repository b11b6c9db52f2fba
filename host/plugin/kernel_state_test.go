package plugin_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// The kernel's state functions served in Go (kernelstate.go) and the direct
// call (direct.go) answer what Extism's CallWithContext and the kernel
// answer: the kernel_state fixture's 16 words, and the three ways it sets
// an error (returning 1, trapping, returning 0 with an output), are the
// same both ways, and the words are what the kernel's code gives.
func TestKernelStateInGo(t *testing.T) {
	inputs := [][]byte{[]byte("{}-edges"), []byte("a"), []byte("ab"), []byte("abc")}
	type answer struct {
		out []byte
		err *plugin.Error
	}
	run := func(inGo bool) []answer {
		defer plugin.SetKernelInGo(inGo)()
		defer plugin.SetDirectCalls(inGo)()
		p := loadIn(t, newRuntime(t, plugin.RuntimeOptions{}), "kernel_state", plugin.Config{})
		var as []answer
		for _, in := range inputs {
			out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, in)
			as = append(as, answer{out, cerr})
		}
		return as
	}
	kernel, inGo := run(false), run(true)
	for i := range inputs {
		k, g := kernel[i], inGo[i]
		if !bytes.Equal(k.out, g.out) || (k.err == nil) != (g.err == nil) ||
			(k.err != nil && (k.err.Category != g.err.Category || k.err.Message != g.err.Message)) {
			t.Errorf("input %q:\nthrough Extism and the kernel %q %+v\ndirect, in Go                 %q %+v", inputs[i], k.out, k.err, g.out, g.err)
		}
	}
	if inGo[0].err != nil || len(inGo[0].out) != 128 {
		t.Fatalf("edges: %q %+v, want 128 bytes", inGo[0].out, inGo[0].err)
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(inGo[0].out[8*i:]) }
	for i, want := range map[int]uint64{0: 0, 1: 0, 2: 0, 3: 0, 4: 16, 5: 0, 6: 0, 7: math.MaxUint64, 8: 0,
		9: 64, 10: 1, 11: 0, 12: 0, 13: 0, 14: 0} {
		if got := word(i); got != want {
			t.Errorf("answer %d is %d, want %d", i, got, want)
		}
	}
	if word(15) == 0 {
		t.Error("memory_bytes answered 0")
	}
	for i, cat := range []abi.ErrorCategory{abi.ErrGuest, abi.ErrPanic} {
		if e := inGo[i+1].err; e == nil || e.Category != cat || !bytes.Contains([]byte(e.Message), []byte("kernel_state error")) {
			t.Errorf("input %q: %+v, want %s with the guest's message", inputs[i+1], e, cat)
		}
	}
}
