//go:build !linux

package memalloc

import "errors"

// reserve has no mmap implementation on this platform: every memory is a
// heap slice (see lease.grow), with the same budget accounting.
func reserve(size uint64) *region { return nil }

var errNoMmap = errors.New("memalloc: no mmap on this platform")

func (r *region) commit(n uint64) error { return errNoMmap }

func (r *region) scrub(n uint64) error { return errNoMmap }

func (r *region) unmap() {}
