package plugin

import (
	"context"
	"math"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Endless sleeps. WASI poll_oneoff takes a u64 relative timeout; wazero
// converts it to a time.Duration, so a guest asking for u64::MAX (or any
// value of 2^63 ns or more) gets a negative timeout, which wazero skips: the
// sleep returns at once and a loop of such sleeps spins the CPU. The host's
// Nanosleep never sees it. So a listener on wazero's poll_oneoff rewrites,
// before each call, every relative clock subscription of 2^63 ns or more to
// the largest positive duration; the call's ctx-aware Nanosleep (sleepCtx)
// then sleeps until the call's deadline or cancellation.

// sleepClampFactory puts sleepClamp on WASI's poll_oneoff and nothing else.
type sleepClampFactory struct{}

// NewFunctionListener implements experimental.FunctionListenerFactory.
func (sleepClampFactory) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.ModuleName() == "wasi_snapshot_preview1" && def.Name() == "poll_oneoff" {
		return sleepClamp{}
	}
	return nil
}

// sleepClamp rewrites endless clock subscriptions in the guest's memory.
type sleepClamp struct{}

// WASI snapshot 1 subscription layout: 48 bytes each; the event type at 8
// (0: clock), the clock's timeout (u64) at 24 and its flags (u16) at 40.
const (
	subSize      = 48
	subEventType = 8
	subTimeout   = 24
	subFlags     = 40
)

// Before implements experimental.FunctionListener: params are poll_oneoff's
// (in, out, nsubscriptions, result_nevents).
func (sleepClamp) Before(_ context.Context, mod api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	mem := mod.Memory()
	if mem == nil || len(params) < 3 {
		return
	}
	in, n := uint32(params[0]), uint32(params[2])
	for i := uint32(0); i < n; i++ {
		base := uint64(in) + uint64(i)*subSize
		if base+subSize > uint64(mem.Size()) {
			return // wazero refuses the call itself
		}
		b := uint32(base)
		kind, _ := mem.ReadByte(b + subEventType)
		flags, _ := mem.ReadUint16Le(b + subFlags)
		timeout, _ := mem.ReadUint64Le(b + subTimeout)
		if kind == 0 && flags == 0 && timeout > math.MaxInt64 {
			mem.WriteUint64Le(b+subTimeout, math.MaxInt64)
		}
	}
}

// After implements experimental.FunctionListener.
func (sleepClamp) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

// Abort implements experimental.FunctionListener.
func (sleepClamp) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}
