package main

import "github.com/tetratelabs/wazero/experimental"

// newAllocator returns the memory allocator for guest linear memories.
func newAllocator() experimental.MemoryAllocator { return nil }
