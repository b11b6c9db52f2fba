package plugin

import (
	"context"

	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// Remote runs a plugin's guest code somewhere else: in a worker process of
// its own (host/isolate). A Plugin whose Config.Remote is set never
// compiles or runs its module in this process. Load still checks the
// module (its pin, imports and entry points, none of which runs guest
// code) and then starts the remote; Invoke, InvokeWith and List hand their
// calls to it; Close closes it.
type Remote interface {
	// Start loads the plugin in the remote and returns the ABI version
	// it declared. Load calls it once.
	Start(ctx context.Context) (abiVersion int, err error)
	// Invoke is InvokeWith, run remotely. Every failure is an *Error
	// with a category, as in process.
	Invoke(ctx context.Context, export string, input []byte, co CallOptions) ([]byte, *Error)
	// List is List, run remotely.
	List(ctx context.Context, export string, input []byte) ([]byte, *Error)
	// Close drains the remote's calls and stops it.
	Close() error
}

// loadRemote finishes Load for a plugin with a Remote: declarations cached
// for these bytes and settings are kept (List serves them without asking
// the remote); the remote is started either way, so a plugin that cannot
// load fails its Load.
func (p *Plugin) loadRemote(ctx context.Context, decl *declarations) (*Plugin, error) {
	v, err := p.cfg.Remote.Start(ctx)
	if err != nil {
		p.Close(ctx)
		return nil, err
	}
	p.ABIVersion = v
	if decl.Lists != nil {
		p.decl = decl
	} else {
		// The remote's answers are recorded as a guest's in process are,
		// for KeepDeclarations to write to the load cache.
		p.recording = &declarations{Module: p.Module, ABIVersion: v, Lists: map[string][]byte{}}
	}
	return p, nil
}

// invokeRemote is InvokeWith for a plugin with a Remote.
func (p *Plugin) invokeRemote(ctx context.Context, export string, input []byte, co CallOptions) ([]byte, *Error) {
	ctx, span := tracing.StartPluginCall(ctx, p.cfg.Name, p.digest, export)
	if co.Record == nil {
		co.Record = &CallRecord{} // the remote reports CPU and memory in it, for the span
	}
	p.rt.calls.inFlight.Add(1)
	out, cerr := p.cfg.Remote.Invoke(ctx, export, input, co)
	p.rt.calls.inFlight.Add(-1)
	co.Record.note(out, cerr, nil) // CPU and MemoryPeak stay as the remote set them
	endSpan(span, cerr, co.Record.CPU, co.Record.MemoryPeak)
	return out, cerr
}

// listRemote is List's read for a plugin with a Remote: from the remote,
// in a span as in process.
func (p *Plugin) listRemote(ctx context.Context, export string, input []byte) ([]byte, *Error) {
	ctx, span := tracing.StartPluginCall(ctx, p.cfg.Name, p.digest, export)
	out, cerr := p.cfg.Remote.List(ctx, export, input)
	endSpan(span, cerr, 0, 0)
	return out, cerr
}

// closeRemote closes the plugin's Remote, if it has one.
func (p *Plugin) closeRemote() {
	if p.cfg.Remote != nil {
		_ = p.cfg.Remote.Close()
	}
}
