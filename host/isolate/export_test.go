package isolate

// Frame kinds, for the tests' hostile workers.
const (
	KindSpec     = kindSpec
	KindWasm     = kindWasm
	KindReady    = kindReady
	KindCall     = kindCall
	KindResult   = kindResult
	KindCallback = kindCallback
)

// RaceEnabled: workers of this test binary run under the race detector.
const RaceEnabled = raceEnabled
