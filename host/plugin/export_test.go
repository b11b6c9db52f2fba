package plugin

// SetRewriterVersion changes the rewriter's version for a test, as a
// release changing the rewrite would, and returns the undo.
func SetRewriterVersion(v string) (restore func()) {
	old := rewriterVersion
	rewriterVersion = v
	return func() { rewriterVersion = old }
}
