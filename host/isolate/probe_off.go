//go:build !isolateprobe

package isolate

// ProbesBuilt reports whether this binary can run the escape probes: only
// a build with the isolateprobe tag, which the product binary never has.
const ProbesBuilt = false

// runProbes refuses: the product binary has no probes.
func runProbes([]byte) []ProbeResult {
	return []ProbeResult{{What: "probes", Errno: -1, Err: "this mcpwasm was built without the isolateprobe tag"}}
}
