package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 bytes", 1000: "1000 bytes", 1 << 10: "1KiB", 3 << 20: "3MiB", 4 << 30: "4GiB",
		1<<20 + 1<<10: "1025KiB", 1<<30 + 1: "1073741825 bytes",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
