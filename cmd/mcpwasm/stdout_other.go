//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"log/slog"
	"os"
)

// privateStdout returns os.Stdout: on this system the transport shares
// stdout with the rest of the process (see stdout_unix.go).
func privateStdout(*slog.Logger) *os.File { return os.Stdout }
