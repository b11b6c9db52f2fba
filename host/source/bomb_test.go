package source

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates on the Go heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLayerUnpackMemoryBounded: pull's peak memory on a compression bomb
// was about twice its cap and more (594 MiB under the default 256 MiB: the
// layer held whole, and the module read with io.ReadAll, whose buffer
// doubles). Unpacking now streams the layer and sizes the module's buffer
// from its tar header, so what a layer may cost is the module's size: a
// bomb is refused from its header having allocated next to nothing, and a
// module near the cap costs the module once.
func TestLayerUnpackMemoryBounded(t *testing.T) {
	const max = 16 << 20
	bomb := tarGz(t, map[string][]byte{"plugin.wasm": append([]byte("\x00asm\x01\x00\x00\x00"), make([]byte, 64<<20)...)})
	var err error
	n := allocated(func() {
		_, _, err = wasmInTar(bytes.NewReader(bomb), "application/vnd.oci.image.layer.v1.tar+gzip", max)
	})
	if err == nil || !strings.Contains(err.Error(), "once decompressed") {
		t.Fatalf("a 64 MiB module under a 16 MiB limit: %v", err)
	}
	if n > 2<<20 {
		t.Errorf("refusing a bomb allocated %d bytes; want under 2 MiB", n)
	}

	const size = 12 << 20
	big := append([]byte("\x00asm\x01\x00\x00\x00"), make([]byte, size-8)...)
	layer := tarGz(t, map[string][]byte{"plugin.wasm": big, "padding.bin": make([]byte, 2<<20)})
	var w []byte
	n = allocated(func() {
		w, _, err = wasmInTar(bytes.NewReader(layer), "application/vnd.oci.image.layer.v1.tar+gzip", max)
	})
	if err != nil || !bytes.Equal(w, big) {
		t.Fatalf("a 12 MiB module under a 16 MiB limit: %v", err)
	}
	if n > size+2<<20 {
		t.Errorf("unpacking a %d-byte module allocated %d bytes; want at most the module and 2 MiB", size, n)
	}
}
