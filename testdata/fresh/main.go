// Command fresh answers what a fresh instance per call must make fresh:
// its randomness, its clock and its state. build.sh compiles it with
// standard Go (fresh_go.wasm) and TinyGo (fresh_tinygo.wasm). The host's
// tests (host/plugin/fresh_test.go) call each tool many times: a runtime
// whose seeded state, clock or globals came from an earlier instance, or
// from an image taken once at load, answers the same twice.
package main

import (
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	randv2 "math/rand/v2"
	"time"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

const anyObject = `{"type":"object"}`

// calls counts the calls this instance served; started is when the
// runtime initialised the package.
var (
	calls   int
	started = time.Now()
)

// seeded is drawn while the package initialises: what a snapshot taken
// after initialisation would hand every call alike. A runtime that starts
// per call draws it anew each time.
var seeded = rand.Uint64()

// hashed is a map built while the package initialises. Its iteration
// order draws on the runtime's random state.
var hashed = func() map[int]bool {
	m := map[int]bool{}
	for i := range 64 {
		m[i] = true
	}
	return m
}()

func main() {}

func init() {
	mcpwasm.Tool("random", "Random values from math/rand, math/rand/v2 and crypto/rand", anyObject,
		func(*mcpwasm.Call) (*mcpwasm.Result, error) {
			calls++
			b := make([]byte, 16)
			if _, err := crand.Read(b); err != nil {
				return nil, err
			}
			first := -1
			for k := range hashed {
				first = k
				break
			}
			out, _ := json.Marshal(map[string]any{
				"math": rand.Uint64(), "mathv2": randv2.Uint64(), "crypto": hex.EncodeToString(b),
				"seeded": seeded, "map_first": first, "calls": calls,
			})
			return mcpwasm.Text(string(out)), nil
		})
	mcpwasm.Tool("clock", "The wall clock now, and when the runtime started, in Unix nanoseconds", anyObject,
		func(*mcpwasm.Call) (*mcpwasm.Result, error) {
			calls++
			out, _ := json.Marshal(map[string]any{"now": time.Now().UnixNano(), "started": started.UnixNano(), "calls": calls})
			return mcpwasm.Text(string(out)), nil
		})
}
