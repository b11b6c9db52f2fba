package hostenv

import (
	"encoding/binary"
	"fmt"

	"github.com/tetratelabs/wazero/experimental"
)

// The layout of Extism's kernel memory (kernel/src/lib.rs, v1.7.0), kept
// byte for byte: guests hold handles into it and may read and write it
// anywhere through load_u64 and store_u64.
const (
	pageSize = 65536
	// MinPages is the kernel memory's initial size, as Extism's kernel
	// module declares it.
	MinPages = 16

	rootInit     = 1  // byte: 1 once the root is set up
	rootPosition = 9  // the bump allocator's position, from blocksStart
	rootLength   = 17 // the bytes the allocator may use
	rootError    = 25 // the error block, or 0
	rootInput    = 33 // the input's offset; its length follows
	rootOutput   = 49 // the output's offset; its length follows
	rootSize     = 64 // size_of::<MemoryRoot>()
	blocksStart  = 65 // the first block header (the root sits at offset 1)

	// A block header: status (u8), size (u32), used (u32), then the data.
	blockSize   = 4
	blockUsed   = 8
	blockHeader = 12

	statusUnused = 0
	statusActive = 1
	statusFree   = 2

	// splitExcess is how much larger than asked a free block must be to be
	// split rather than handed out whole.
	splitExcess = 128
)

// Trap is what a kernel function panics with where Extism's Wasm kernel
// would trap (an access past the end of its memory): wazero unwinds the
// guest and reports it, as it reports the kernel's trap.
type Trap struct{ Msg string }

func (t *Trap) Error() string { return t.Msg }

func trap(format string, args ...any) {
	panic(&Trap{Msg: fmt.Sprintf(format, args...)})
}

// Kernel is the kernel memory of one instance: a byte arena with Extism's
// allocator over it. Its memory comes from a wazero memory allocator (the
// call's, charged to the memory budget) and grows as Extism's kernel
// memory does, by pages, up to max.
type Kernel struct {
	mem []byte
	lm  experimental.LinearMemory // nil: mem is a Go slice
	max uint64
}

// NewKernel makes a kernel memory of MinPages pages from a (nil: the Go
// heap) that may grow to max bytes (at least MinPages pages). It returns
// nil if a refuses even the initial size.
func NewKernel(a experimental.MemoryAllocator, max uint64) *Kernel {
	min := uint64(MinPages * pageSize)
	max = max / pageSize * pageSize
	if max < min {
		max = min
	}
	k := &Kernel{max: max}
	if a == nil {
		k.mem = make([]byte, min)
		return k
	}
	k.lm = a.Allocate(min, max)
	if k.mem = k.lm.Reallocate(min); k.mem == nil {
		k.lm.Free()
		return nil
	}
	return k
}

// Release gives the memory back. The kernel must not be used after.
func (k *Kernel) Release() {
	if k.lm != nil {
		k.lm.Free()
	}
	k.mem, k.lm = nil, nil
}

// Size is the memory's size in bytes (memory.size).
func (k *Kernel) Size() uint64 { return uint64(len(k.mem)) }

// Bytes is the memory itself, for reads and writes in place. It is valid
// until the next alloc (which may grow it).
func (k *Kernel) Bytes() []byte { return k.mem }

// grow is memory.grow by n pages: false if the limit or the allocator
// refuses.
func (k *Kernel) grow(n uint64) bool {
	size := uint64(len(k.mem)) + n*pageSize
	if n > k.max/pageSize || size > k.max {
		return false
	}
	if k.lm == nil {
		b := make([]byte, size)
		copy(b, k.mem)
		k.mem = b
		return true
	}
	b := k.lm.Reallocate(size)
	if b == nil {
		return false
	}
	k.mem = b
	return true
}

// Memory accesses as the Wasm kernel makes them: a pointer is a wasm32
// address (the low 32 bits), and an access past the end traps.

func (k *Kernel) u8(p uint64) byte {
	a := uint64(uint32(p))
	if a >= uint64(len(k.mem)) {
		trap("out of bounds memory access: kernel byte at %d", a)
	}
	return k.mem[a]
}

func (k *Kernel) setU8(p uint64, v byte) {
	a := uint64(uint32(p))
	if a >= uint64(len(k.mem)) {
		trap("out of bounds memory access: kernel byte at %d", a)
	}
	k.mem[a] = v
}

func (k *Kernel) u32(p uint64) uint32 {
	a := uint64(uint32(p))
	if a+4 > uint64(len(k.mem)) {
		trap("out of bounds memory access: kernel word at %d", a)
	}
	return binary.LittleEndian.Uint32(k.mem[a:])
}

func (k *Kernel) setU32(p uint64, v uint32) {
	a := uint64(uint32(p))
	if a+4 > uint64(len(k.mem)) {
		trap("out of bounds memory access: kernel word at %d", a)
	}
	binary.LittleEndian.PutUint32(k.mem[a:], v)
}

// word and setWord are the root's 8-byte fields (always in bounds).
func (k *Kernel) word(off int) uint64 { return binary.LittleEndian.Uint64(k.mem[off:]) }

func (k *Kernel) setWord(off int, v uint64) { binary.LittleEndian.PutUint64(k.mem[off:], v) }

// root sets the root up on first use (MemoryRoot::new).
func (k *Kernel) root() {
	if k.mem[rootInit] != 0 {
		return
	}
	k.mem[rootInit] = 1
	k.setWord(rootInput, 0)
	k.setWord(rootInput+8, 0)
	k.setWord(rootOutput, 0)
	k.setWord(rootOutput+8, 0)
	k.setWord(rootError, 0)
	k.setWord(rootLength, pageSize-rootSize)
	k.setWord(rootPosition, 0)
	clear(k.mem[blocksStart : blocksStart+blockHeader])
}

// inBoundsFast is pointer_in_bounds_fast: p inside the memory (its very
// end included), past the root.
func (k *Kernel) inBoundsFast(p uint64) bool {
	return p >= rootSize && p <= uint64(len(k.mem))
}

// inBounds is pointer_in_bounds: p inside the allocator's bytes.
func (k *Kernel) inBounds(p uint64) bool {
	return p >= blocksStart && p < blocksStart+k.word(rootLength)
}

// Alloc is alloc(n): a new block of n bytes, its handle, or 0.
func (k *Kernel) Alloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	k.root()
	pos, length := k.word(rootPosition), k.word(rootLength)
	curr := blocksStart + pos
	left := length - pos - rootSize
	withHeader := n + blockHeader
	if withHeader >= left {
		// Freed blocks are reused only when the memory would grow.
		if withHeader <= pos {
			if b, ok := k.findFreeBlock(n, pos); ok {
				k.setU32(b+blockUsed, uint32(n))
				k.setU8(b, statusActive)
				return b + blockHeader
			}
		}
		pages := (withHeader - left + pageSize - 1) / pageSize
		if uint64(uint32(pages)) != pages || !k.grow(pages) {
			return 0
		}
		k.setWord(rootLength, k.word(rootLength)+pages*pageSize)
	}
	k.setWord(rootPosition, pos+n+blockHeader)
	k.setU8(curr, statusActive)
	k.setU32(curr+blockSize, uint32(n))
	k.setU32(curr+blockUsed, uint32(n))
	return curr + blockHeader
}

// findFreeBlock returns a block below pos to reuse for n bytes: an unused
// one, or a freed one large enough (split if much larger).
func (k *Kernel) findFreeBlock(n, pos uint64) (uint64, bool) {
	for b := uint64(blocksStart); b < blocksStart+pos; {
		switch k.u8(b) {
		case statusUnused:
			return b, true
		case statusFree:
			size := k.u32(b + blockSize)
			if size >= uint32(n) {
				if size-uint32(n) >= splitExcess {
					size -= uint32(n) + blockHeader
					k.setU32(b+blockSize, size)
					k.setU32(b+blockUsed, 0)
					b1 := b + blockHeader + uint64(size)
					k.setU32(b1+blockSize, uint32(n))
					k.setU32(b1+blockUsed, 0)
					k.setU8(b1, statusFree)
					return b1, true
				}
				return b, true
			}
		}
		b = uint64(uint32(b + blockHeader + uint64(k.u32(b+blockSize))))
	}
	return 0, false
}

// findBlock returns the header of the active block whose data is at p.
// Like the kernel's, the walk runs to blocksStart+p, past the last block.
func (k *Kernel) findBlock(p uint64) (uint64, bool) {
	if !k.inBoundsFast(p) {
		return 0, false
	}
	for b := uint64(blocksStart); b < blocksStart+p; {
		if k.u8(b) == statusActive && b+blockHeader == p {
			return b, true
		}
		b = uint64(uint32(b + blockHeader + uint64(k.u32(b+blockSize))))
	}
	return 0, false
}

// Free is free(h): the block is marked free (and the input forgotten if
// it was the input).
func (k *Kernel) Free(h uint64) {
	if h == 0 {
		return
	}
	k.root()
	if b, ok := k.findBlock(h); ok {
		k.setU8(b, statusFree)
		if h == k.word(rootInput) {
			k.setWord(rootInput+8, 0)
		}
	}
}

// Length is length(h): the block's length, or 0 if h is not an active
// block's handle.
func (k *Kernel) Length(h uint64) uint64 {
	if h == 0 {
		return 0
	}
	k.root()
	if b, ok := k.findBlock(h); ok {
		return uint64(k.u32(b + blockUsed))
	}
	return 0
}

// LengthUnsafe is length_unsafe(h): the length in the header before h,
// if its status says active, without walking the blocks.
func (k *Kernel) LengthUnsafe(h uint64) uint64 {
	if h == 0 || !k.inBoundsFast(h) {
		return 0
	}
	b := h - blockHeader
	if k.u8(b) != statusActive {
		return 0
	}
	return uint64(k.u32(b + blockUsed))
}

// LoadU8 is load_u8(p): 0 below the root's end or past the memory.
func (k *Kernel) LoadU8(p uint64) byte {
	if !k.inBoundsFast(p) {
		return 0
	}
	return k.u8(p)
}

// StoreU8 is store_u8(p, v): nothing below the root's end or past the
// memory.
func (k *Kernel) StoreU8(p uint64, v byte) {
	if k.inBoundsFast(p) {
		k.setU8(p, v)
	}
}

// InputLoadU8 is input_load_u8(i): the input's byte i, 0 past its end.
func (k *Kernel) InputLoadU8(i uint64) byte {
	k.root()
	if i >= k.word(rootInput+8) {
		return 0
	}
	return k.u8(k.word(rootInput) + i)
}

// setRange is input_set and output_set: the range is taken if its first
// and last bytes are the allocator's.
func (k *Kernel) setRange(which int, p, n uint64) {
	k.root()
	if !k.inBounds(p) || !k.inBounds(p+n-1) {
		return
	}
	k.setWord(which, p)
	k.setWord(which+8, n)
}

// InputSet is input_set(h, n).
func (k *Kernel) InputSet(h, n uint64) { k.setRange(rootInput, h, n) }

// OutputSet is output_set(h, n).
func (k *Kernel) OutputSet(h, n uint64) { k.setRange(rootOutput, h, n) }

// InputOffset is input_offset().
func (k *Kernel) InputOffset() uint64 { k.root(); return k.word(rootInput) }

// InputLength is input_length().
func (k *Kernel) InputLength() uint64 { k.root(); return k.word(rootInput + 8) }

// OutputOffset is output_offset().
func (k *Kernel) OutputOffset() uint64 { k.root(); return k.word(rootOutput) }

// OutputLength is output_length().
func (k *Kernel) OutputLength() uint64 { k.root(); return k.word(rootOutput + 8) }

// ErrorSet is error_set(h): 0 clears the error; a handle outside the
// allocator's bytes is ignored.
func (k *Kernel) ErrorSet(h uint64) {
	k.root()
	if h != 0 && !k.inBounds(h) {
		return
	}
	k.setWord(rootError, h)
}

// ErrorGet is error_get(): the error block, or 0.
func (k *Kernel) ErrorGet() uint64 { k.root(); return k.word(rootError) }

// MemoryBytes is memory_bytes(): the bytes the allocator may use.
func (k *Kernel) MemoryBytes() uint64 { k.root(); return k.word(rootLength) }

// Reset is reset(): every block is forgotten, and the input, output and
// error with them.
func (k *Kernel) Reset() {
	k.root()
	pos := k.word(rootPosition)
	k.setWord(rootPosition, 0)
	end := uint64(blocksStart) + pos
	if end > uint64(len(k.mem)) {
		trap("out of bounds memory access: reset of %d bytes", pos)
	}
	clear(k.mem[blocksStart:end])
	k.setWord(rootError, 0)
	k.setWord(rootInput, 0)
	k.setWord(rootInput+8, 0)
	k.setWord(rootOutput, 0)
	k.setWord(rootOutput+8, 0)
}

// Read returns the bytes at [p, p+n) in place, or false past the memory.
func (k *Kernel) Read(p, n uint64) ([]byte, bool) {
	if p > uint64(len(k.mem)) || n > uint64(len(k.mem))-p {
		return nil, false
	}
	return k.mem[p : p+n : p+n], true
}

// Block returns the bytes of the block at h in place (its length from
// Length), or false if they are outside the memory, as go-sdk's
// CurrentPlugin.ReadBytes does (a handle that is no block reads empty).
func (k *Kernel) Block(h uint64) ([]byte, bool) {
	return k.Read(uint64(uint32(h)), uint64(uint32(k.Length(h))))
}

// Write allocates a block holding b and returns its handle, as go-sdk's
// CurrentPlugin.WriteBytes does: 0 for empty b; false if the kernel
// cannot allocate it.
func (k *Kernel) Write(b []byte) (uint64, bool) {
	h := k.Alloc(uint64(len(b)))
	if h == 0 && len(b) > 0 {
		return 0, false
	}
	dst, ok := k.Read(uint64(uint32(h)), uint64(len(b)))
	if !ok {
		return 0, false
	}
	copy(dst, b)
	return h, true
}

// Output copies the output range out (empty if it lies outside the
// memory), as go-sdk's GetOutput does.
func (k *Kernel) Output() []byte {
	b, _ := k.Read(uint64(uint32(k.OutputOffset())), uint64(uint32(k.OutputLength())))
	return append([]byte{}, b...)
}

// ErrorMessage is the error block's bytes as a string, or "", as go-sdk's
// GetError does.
func (k *Kernel) ErrorMessage() string {
	h := k.ErrorGet()
	if h == 0 {
		return ""
	}
	b, _ := k.Read(uint64(uint32(h)), uint64(uint32(k.Length(h))))
	return string(b)
}
