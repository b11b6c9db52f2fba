//go:build race

package isolate

// raceEnabled: this binary runs under the race detector, whose shadow
// memory does not fit a worker's RLIMIT_DATA.
const raceEnabled = true
