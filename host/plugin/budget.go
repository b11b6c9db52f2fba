package plugin

// TableElementBytes is what one table element is charged, against a
// plugin's memory limit and the server's memory budget. wazero keeps a table
// as a Go []uintptr (8 bytes an element) and grows it with append, which
// may allocate up to about twice what it needs while the old array is still
// live; 16 covers that.
const TableElementBytes = 16

// maxTableElements is how many elements a plugin's tables may hold in all:
// together they may use as many bytes as one of its linear memories.
func maxTableElements(memLimit uint64) uint64 {
	return memLimit / TableElementBytes
}
