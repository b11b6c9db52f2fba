//go:build unix

package store

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivateDir refuses a path that is not a folder (symlinks followed),
// that another user owns, or that group or others may write to: whoever can
// write there can plant a plugin.
func checkPrivateDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot tell its owner", dir)
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s is owned by user %d, not by the current user (%d)", dir, st.Uid, uid)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (mode %04o): only its owner may write plugins there (chmod 700)", dir, info.Mode().Perm())
	}
	return nil
}
