//go:build unix

package private

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Check refuses a file or folder that the current user does not own, and
// a folder that group or others may write to.
func Check(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot tell its owner", path)
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s is owned by user %d, not by the current user (%d)", path, st.Uid, uid)
	}
	if info.IsDir() && info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (mode %04o): only its owner may write there (chmod 700)", path, info.Mode().Perm())
	}
	return nil
}
