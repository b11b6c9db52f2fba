package plugin

import "time"

// SetRewriterVersion changes the rewriter's version for a test, as a
// release changing the rewrite would, and returns the undo.
func SetRewriterVersion(v string) (restore func()) {
	old := rewriterVersion
	rewriterVersion = v
	return func() { rewriterVersion = old }
}

// DropSpares closes the plugin's instance built ahead and builds no more,
// as Close does first, so a test can see what the spare held.
func (p *Plugin) DropSpares() { p.closeSpares() }

// StartBytes is what one instance of the plugin is charged at start.
func (p *Plugin) StartBytes() uint64 { return p.startBytes() }

// SetKernelInGo turns the Go byte functions (kernel.go) on or off for the
// plugins loaded after it, and returns the undo.
func SetKernelInGo(on bool) (restore func()) {
	old := kernelInGo
	kernelInGo = on
	return func() { kernelInGo = old }
}

// SetSpareIdle changes how long an instance built ahead waits for a call,
// and returns the undo.
func SetSpareIdle(d time.Duration) (restore func()) {
	old := spareIdle
	spareIdle = d
	return func() { spareIdle = old }
}
