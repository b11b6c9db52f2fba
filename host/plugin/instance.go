package plugin

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// compiled is a plugin's code: a wazero runtime of its own holding the
// host modules (WASI if the plugin needs it, extism:host/env served by
// hostenv, extism:host/user, the interruption points) and the compiled
// guest module. Every call instantiates the guest afresh (newInstance).
type compiled struct {
	rt    wazero.Runtime
	mod   wazero.CompiledModule
	init  hostenv.Init // the guest runtime's init, found once
	guard *listGuard   // the lister's checks, when it runs the module without interruption points
}

// Close releases the runtime and everything compiled in it.
func (c *compiled) Close(ctx context.Context) error { return c.rt.Close(ctx) }

// newCompiled builds the runtime and compiles wasm in it. A function
// listener factory in ctx (the lister's guard) sees the guest's functions
// last, after the host modules' (which it gives none).
func newCompiled(ctx context.Context, rc wazero.RuntimeConfig, wasm []byte, wasi bool) (*compiled, error) {
	r := wazero.NewRuntimeWithConfig(ctx, rc)
	err := func() error {
		if wasi {
			if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
				return err
			}
		}
		if err := hostenv.Instantiate(ctx, r); err != nil {
			return err
		}
		if err := instantiateHostModule(ctx, r, abi.NamespaceUser, hostFunctions()); err != nil {
			return err
		}
		return instantiateHostModule(ctx, r, interruptNamespace, interruptFunctions())
	}()
	if err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("building host modules: %w", err)
	}
	mod, err := r.CompileModule(ctx, wasm)
	if err != nil {
		r.Close(ctx)
		return nil, err
	}
	return &compiled{rt: r, mod: mod, init: hostenv.DetectInit(mod, wasi)}, nil
}

// instance is one guest instance with its kernel memory.
type instance struct {
	env *hostenv.Instance
}

// newInstance instantiates the guest with mc (from moduleConfig), its memories (the guest's
// and the kernel's) from mem, and st as the host functions' state. ctx
// carries the instance from the start (a module's start section may call
// the host); the returned context is ctx with it, also handed to setCtx
// before the instance starts (the guest's sleeps run under it). Close the
// instance after the call.
func (p *Plugin) newInstance(ctx context.Context, c *compiled, mc wazero.ModuleConfig, mem experimental.MemoryAllocator,
	closer experimental.CloseNotifier, st *callState, setCtx func(context.Context)) (*instance, context.Context, error) {
	k := hostenv.NewKernel(mem, uint64(runtimePages(p.cfg.MemoryLimit))*pageSize)
	if k == nil {
		return nil, ctx, fmt.Errorf("instantiate: the kernel's memory (%d pages) was refused", hostenv.MinPages)
	}
	env := hostenv.NewInstance(nil, k, c.init)
	env.Config = p.cfg.GuestConfig
	// env.LogLevel stays off: get_log_level answers "off" and log_* are
	// dropped, as under Extism, whose process-wide level mcpwasm never set.
	env.HTTP = netHTTP{}
	env.Host = st
	ctx = hostenv.With(ctx, env)
	setCtx(ctx)
	ictx := experimental.WithMemoryAllocator(ctx, mem)
	if closer != nil {
		ictx = experimental.WithCloseNotifier(ictx, closer)
	}
	mod, err := c.rt.InstantiateModule(ictx, c.mod, mc)
	if err != nil {
		k.Release()
		return nil, ctx, fmt.Errorf("instantiate: %w", err)
	}
	env.Module = mod
	return &instance{env: env}, ctx, nil
}

// close closes the guest and gives its kernel memory back.
func (i *instance) close() {
	i.env.Module.Close(context.Background())
	i.env.Kernel.Release()
}

// call runs export with input (hostenv.Instance.Run). ctx must be the
// one newInstance returned, or derived from it.
func (i *instance) call(ctx context.Context, export string, input []byte) (uint32, []byte, error) {
	return i.env.Run(ctx, export, input)
}

// errorMessage is what the guest set with error_set, or "".
func (i *instance) errorMessage() string { return i.env.Kernel.ErrorMessage() }

// guestModule is the guest's instance.
func (i *instance) guestModule() api.Module { return i.env.Module }
