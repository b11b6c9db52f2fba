package plugin_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// The kernel's byte functions served in Go (kernel.go) answer what the
// Extism kernel answers, on the edges of their ranges: the kernel_u8
// fixture's 20 answers are the same through Go and through the kernel, and
// are the values the kernel's code gives.
func TestKernelBytesInGo(t *testing.T) {
	input := []byte("abcdef")
	run := func(inGo bool) []byte {
		defer plugin.SetKernelInGo(inGo)()
		p := loadIn(t, newRuntime(t, plugin.RuntimeOptions{}), "kernel_u8", plugin.Config{})
		var first []byte
		for i := range 3 { // each call in a fresh instance, the same answer
			out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, input)
			if cerr != nil {
				t.Fatalf("inGo=%v: %+v", inGo, cerr)
			}
			if i == 0 {
				first = out
			} else if !bytes.Equal(out, first) {
				t.Fatalf("inGo=%v: call %d answered %v, the first %v", inGo, i, out, first)
			}
		}
		return first
	}
	kernel, inGo := run(false), run(true)
	if !bytes.Equal(kernel, inGo) {
		t.Fatalf("through the kernel %v\nin Go              %v", kernel, inGo)
	}
	want := map[int]byte{0: 'a', 1: 'f', 2: 0, 3: 0, 4: 0, 5: 7, 6: 300 % 256, 7: 6, 8: 0, 10: 0, 11: 0,
		12: 7, 13: 300 % 256, 14: 0, 15: 2, 16: 0, 17: 0, 19: 0}
	if len(inGo) != 20 {
		t.Fatalf("answer %v, want 20 bytes", inGo)
	}
	for i, w := range want {
		if inGo[i] != w {
			t.Errorf("answer %d is %d, want %d (all: %v)", i, inGo[i], w, inGo)
		}
	}
}
