// Package private checks that a folder (or a file in it) is private to the
// current user: owned by them and, for a folder, not writable by group or
// others. Whoever can write into a plugin store or a compiled-code cache
// can make the server run their code. Ownership and modes are checked on
// Unix only; elsewhere only the kind of file is.
package private

import (
	"fmt"
	"os"
)

// Dir refuses a path that is not a folder (symlinks followed), that
// another user owns, or that group or others may write to.
func Dir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return Check(dir, info)
}
