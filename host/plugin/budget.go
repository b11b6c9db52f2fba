package plugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/memalloc"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
)

// TableElementBytes is what one table element is charged, against a
// plugin's memory limit and the server's memory budget. wazero keeps a table
// as a Go []uintptr (8 bytes an element) and grows it with append, which
// may allocate up to about twice what it needs while the old array is still
// live; 16 covers that.
const TableElementBytes = 16

// maxTableElements is how many elements a plugin's tables may hold in all:
// together they may use as many bytes as one of its linear memories.
func maxTableElements(memLimit uint64) uint64 {
	return memLimit / TableElementBytes
}

// startBytes is what one instance holds from the moment it is built: the
// kernel's memory (hostenv), the plugin's memories at their initial sizes,
// and its tables at their maximums (wazero grows tables outside any
// allocator, so the budget cannot refuse a table.grow; it is charged up
// front instead).
func (p *Plugin) startBytes() uint64 {
	n := uint64(hostenv.MinPages) * pageSize
	if p.cfg.Interrupts == InterruptPoints {
		n += StackLimit // the guest's stack, as the rewrite bounds it
	}
	for _, m := range p.Module.Memories {
		n += m.Min * pageSize
	}
	for _, t := range p.Module.Tables {
		n += t.Max * TableElementBytes
	}
	return n
}

// checkBudget refuses at load a plugin that could never start within the
// server's memory budget.
func (rt *Runtime) checkBudget(p *Plugin) error {
	if b := rt.budget; b > 0 && p.startBytes() > b {
		return fmt.Errorf("an instance needs %s to start (memories at their initial sizes, tables at their maximums), more than the server's whole memory budget of %s",
			humanBytes(p.startBytes()), humanBytes(b))
	}
	return nil
}

// reserve charges what the instance will hold at start against the
// server's memory budget, before the instance is built: wazero cannot
// refuse a memory's initial size once instantiation has begun. It waits
// for room within the call's time limit; the call is then refused as busy
// (or out_of_memory if it could never fit). ctx is the caller's context,
// callCtx the call's (with the time limit).
func (p *Plugin) reserve(ctx, callCtx context.Context) (*memalloc.Reservation, *Error) {
	need := p.startBytes()
	res, err := p.rt.mem.Reserve(callCtx, need)
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, memalloc.ErrOverBudget):
		return nil, newError(abi.ErrOutOfMemory, err, "the tool needs %s to start, more than the server's whole memory budget of %s",
			humanBytes(need), humanBytes(p.rt.budget)).with("limit_bytes", p.rt.budget)
	case errors.Is(ctx.Err(), context.Canceled):
		return nil, newError(abi.ErrCancelled, ctx.Err(), "the call was cancelled before it started")
	}
	return nil, newError(abi.ErrBusy, err,
		"the server is busy: its memory budget of %s is taken by other calls, and not enough (%s) was freed within the time limit",
		humanBytes(p.rt.budget), humanBytes(need)).with("limit_bytes", p.rt.budget)
}
