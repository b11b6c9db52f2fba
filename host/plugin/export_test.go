package plugin

// SetRewriterVersion changes the rewriter's version for a test, as a
// release changing the rewrite would, and returns the undo.
func SetRewriterVersion(v string) (restore func()) {
	old := rewriterVersion
	rewriterVersion = v
	return func() { rewriterVersion = old }
}

// SetKernelInGo turns the Go byte functions (kernel.go) on or off for the
// plugins loaded after it, and returns the undo.
func SetKernelInGo(on bool) (restore func()) {
	old := kernelInGo
	kernelInGo = on
	return func() { kernelInGo = old }
}

// SetDirectCalls turns direct calls (direct.go) on or off, and returns the
// undo.
func SetDirectCalls(on bool) (restore func()) {
	old := directCalls
	directCalls = on
	return func() { directCalls = old }
}
