package wasmbin

import (
	"os"
	"testing"
)

func BenchmarkFrameSizesVsInstrument(b *testing.B) {
	wasm, err := os.ReadFile(os.Getenv("FRAMES_WASM"))
	if err != nil {
		b.Skip(err)
	}
	b.Run("FrameSizes", func(b *testing.B) {
		for b.Loop() {
			if _, err := FrameSizes(wasm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Instrument", func(b *testing.B) {
		opts := InterruptOptions{Module: "m", Name: "poll", GrowFailed: "g", StackLimit: 4 << 20, StackExhausted: "s", ClampSleeps: true, Fuel: 1 << 20}
		for b.Loop() {
			if _, err := Instrument(wasm, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
