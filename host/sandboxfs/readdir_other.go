//go:build !unix

package sandboxfs

import (
	"io"
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// openNonblock is not available here.
const openNonblock = 0

// readdir lists up to n entries (all if n <= 0). Inode numbers are not
// available without a path-based stat, so they are reported as 0.
func readdir(dir *os.File, n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	ents, err := dir.ReadDir(n)
	if err != nil && err != io.EOF {
		return nil, fileErrno(err)
	}
	out := make([]experimentalsys.Dirent, 0, len(ents))
	for _, e := range ents {
		out = append(out, experimentalsys.Dirent{Name: e.Name(), Type: e.Type()})
	}
	return out, 0
}
