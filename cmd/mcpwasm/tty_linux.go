package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileIsTerminal reports whether f is a terminal (it has terminal
// attributes).
func fileIsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
