//go:build !unix

package store

import (
	"fmt"
	"os"
)

// checkPrivateDir only checks that dir is a folder: ownership and modes are
// checked on Unix only.
func checkPrivateDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}
