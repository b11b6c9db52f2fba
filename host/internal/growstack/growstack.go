// Package growstack grows the calling goroutine's stack ahead of a deep
// call, in one step.
//
// A goroutine starts with a small stack and the runtime doubles it each
// time a call does not fit, copying the whole stack and adjusting every
// frame in it; the deeper the stack when it overflows, the dearer the
// copy. go-sdk runs every request on a goroutine of its own, and a
// sandboxed call goes deep (middlewares, JSON Schema validation, the
// sandbox, wazero's call engine, host functions): grown through several
// doublings as it goes. Grow, called while the stack is still shallow,
// makes the runtime do it once, copying only a few frames.
package growstack

// Size is how much stack Grow asks for.
const Size = 16 << 10

// Grow makes sure the goroutine's stack has about Size bytes free, so
// deeper calls do not grow it again.
//
//go:noinline
func Grow() {
	var buf [Size]byte
	keep(&buf)
}

// keep takes the buffer's address so the compiler keeps Grow's frame; it
// writes nothing shared, so concurrent Grows do not race.
//
//go:noinline
func keep(*[Size]byte) {}
