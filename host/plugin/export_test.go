package plugin

// SetRewriterVersion changes the rewriter's version for a test, as a
// release changing the rewrite would, and returns the undo.
func SetRewriterVersion(v string) (restore func()) {
	old := rewriterVersion
	rewriterVersion = v
	return func() { rewriterVersion = old }
}

// SetBuildHook has h told, as each build of machine code starts, the
// plugin's name and whether a call waits for it.
func SetBuildHook(rt *Runtime, h func(plugin string, urgent bool, beside int)) { rt.queue.hook = h }

// WaitBuilt waits for the plugin's build to end, without asking for it.
func (p *Plugin) WaitBuilt() {
	p.codeMu.Lock()
	done := p.compiling
	p.codeMu.Unlock()
	if done != nil {
		<-done
	}
}

// MachineCodeReady reports whether the plugin's build has ended.
func (p *Plugin) MachineCodeReady() bool {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	if p.compiling == nil {
		return false
	}
	select {
	case <-p.compiling:
		return true
	default:
		return false
	}
}

// HoldBuilds keeps every build of machine code from starting until the
// returned release is called.
func HoldBuilds(rt *Runtime) (release func()) {
	rt.queue.mu.Lock()
	rt.queue.held = true
	rt.queue.mu.Unlock()
	return func() {
		rt.queue.mu.Lock()
		defer rt.queue.mu.Unlock()
		rt.queue.held = false
		rt.queue.dispatch()
	}
}
