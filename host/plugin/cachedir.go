package plugin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"

	"github.com/mcpwasm/mcpwasm/host/internal/private"
)

// diskCache opens the on-disk compilation cache in dir (DefaultCacheDir if
// empty) and returns it with the folder it checked. Whatever goes wrong,
// the process still runs: it logs why and falls back to an in-memory cache
// (and no folder).
func (rt *Runtime) diskCache(dir string) (wazero.CompilationCache, string) {
	if dir == "" {
		dir = DefaultCacheDir()
		if dir == "" {
			rt.logger.Warn("no user cache folder ($XDG_CACHE_HOME and $HOME unset): compiling in memory only; set --cache-dir to cache compiled plugins")
			return wazero.NewCompilationCache(), ""
		}
	}
	if err := checkCacheDir(dir); err != nil {
		rt.logger.Warn("refusing the compilation cache folder: compiling in memory only", "dir", dir, "err", err)
		return wazero.NewCompilationCache(), ""
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		rt.logger.Warn("compilation cache unavailable; compiling in memory only", "dir", dir, "err", err)
		return wazero.NewCompilationCache(), ""
	}
	return c, dir
}

// checkCacheDir creates dir (mode 0700, parents included) if it is missing,
// and refuses it unless only the current user can have put anything there:
// wazero runs the native code it finds in its cache folder, checked only by
// a CRC32. dir itself (symlinks followed) and every folder directly in it
// (wazero's per-version folders) must be directories owned by the current
// user and not writable by group or others, and the files in those folders
// must be regular files owned by the current user. Ownership and modes are
// checked on Unix only.
func checkCacheDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return err
	}
	if err := private.Dir(abs); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(abs, e.Name())
		if err := private.Dir(sub); err != nil {
			return err
		}
		files, err := os.ReadDir(sub)
		if err != nil {
			return err
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue // removed since the listing
				}
				return err
			}
			if !info.Mode().IsRegular() {
				return fmt.Errorf("%s is not a regular file", filepath.Join(sub, f.Name()))
			}
			if err := private.Check(filepath.Join(sub, f.Name()), info); err != nil {
				return err
			}
		}
	}
	return nil
}
