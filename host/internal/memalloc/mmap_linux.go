//go:build linux

package memalloc

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// osPage is the granularity of mprotect and madvise.
var osPage = uint64(os.Getpagesize())

func roundUp(n uint64) uint64 { return (n + osPage - 1) &^ (osPage - 1) }

// reserve maps size bytes of inaccessible address space. PROT_NONE costs
// no commit charge even under vm.overcommit_memory=2 (a writable private
// mapping would be charged in full there, MAP_NORESERVE or not), so a
// 4 GiB reservation is as cheap as a 64 KiB one. It returns nil if the
// mapping fails, and the caller falls back to the heap.
func reserve(size uint64) *region {
	size = roundUp(size)
	if uint64(uintptr(size)) != size {
		return nil // does not fit this address space
	}
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(size), unix.PROT_NONE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	// unsafe: the mapping mmap returned, seen as a byte slice of its size.
	return &region{mem: unsafe.Slice((*byte)(p), size)}
}

// commit makes the first n bytes readable and writable. Pages past the
// earlier prefix have never been touched, so they read as zeros.
func (r *region) commit(n uint64) error {
	n = min(roundUp(n), uint64(len(r.mem)))
	if n <= r.rw {
		return nil
	}
	if err := unix.Mprotect(r.mem[r.rw:n], unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return err
	}
	r.rw = n
	return nil
}

// scrub drops the pages behind the first n bytes: the next access maps a
// fresh zero page, so nothing written reaches the next user. The pages
// stay accessible, which saves the next user's mprotect.
func (r *region) scrub(n uint64) error {
	n = min(roundUp(n), r.rw)
	if n == 0 {
		return nil
	}
	return unix.Madvise(r.mem[:n], unix.MADV_DONTNEED)
}

// unmap releases the reservation.
func (r *region) unmap() {
	// unsafe: the same mapping handed back by its address.
	_ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(r.mem)), uintptr(len(r.mem)))
	r.mem, r.rw = nil, 0
}
