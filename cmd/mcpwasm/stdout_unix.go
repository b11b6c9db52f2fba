//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"log/slog"
	"os"

	"golang.org/x/sys/unix"
)

// privateStdout gives the stdio transport a private copy of the process's
// standard output and points fd 1 at stderr. From then on whatever else
// writes to stdout — a dependency's fmt.Println (Extism's
// SetInputWithContext prints an error there), a stray debug line — lands in
// the log instead of corrupting the JSON-RPC stream. The copy is
// close-on-exec, so no child process inherits it. If the descriptors cannot
// be rearranged, the transport keeps os.Stdout and a warning says so.
func privateStdout(logger *slog.Logger) *os.File {
	fd, err := unix.FcntlInt(uintptr(unix.Stdout), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		logger.Warn("stdout is shared with the rest of the process: duplicating fd 1 failed", "err", err)
		return os.Stdout
	}
	if err := unix.Dup2(unix.Stderr, unix.Stdout); err != nil {
		unix.Close(fd)
		logger.Warn("stdout is shared with the rest of the process: pointing fd 1 at stderr failed", "err", err)
		return os.Stdout
	}
	return os.NewFile(uintptr(fd), "stdout (MCP transport)")
}
