//go:build !linux

package main

import "os"

// fileIsTerminal reports whether f is a character device: a terminal,
// usually (/dev/null too, which only costs a few progress lines).
func fileIsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
