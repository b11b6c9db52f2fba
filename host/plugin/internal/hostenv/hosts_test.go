package hostenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The two hosts of the differential test: Extism's go-sdk, the reference,
// and this package on plain wazero, configured alike.

// moduleConfig is the guest's configuration on both hosts: wazero's
// deterministic defaults, output captured.
func moduleConfig(out io.Writer) wazero.ModuleConfig {
	return wazero.NewModuleConfig().WithStdout(out).WithStderr(out)
}

func runtimeConfig(cache wazero.CompilationCache) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().WithCompilationCache(cache).WithCloseOnContextDone(true).WithMemoryLimitPages(512)
}

// needsWASI is the rule host/plugin loads by: a WASI import, or a reactor.
func needsWASI(cm wazero.CompiledModule) bool {
	for _, f := range cm.ImportedFunctions() {
		if m, _, _ := f.Import(); m == wasi_snapshot_preview1.ModuleName {
			return true
		}
	}
	_, reactor := cm.ExportedFunctions()["_initialize"]
	return reactor
}

// userImports are the module's extism:host/user imports.
func userImports(cm wazero.CompiledModule) []api.FunctionDefinition {
	var defs []api.FunctionDefinition
	for _, f := range cm.ImportedFunctions() {
		if m, _, _ := f.Import(); m == "extism:host/user" {
			defs = append(defs, f)
		}
	}
	return defs
}

func sortedVars[V []byte | string](m map[string]V) map[string]string {
	out := map[string]string{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[k] = string(m[k])
	}
	return out
}

// allowedHost is the stub's host: the only one either host lets guests
// reach (Extism's allow-list; this package's test hook below).
const allowedHost = "127.0.0.1"

// extismHost is the reference.
type extismHost struct {
	compiled *extism.CompiledPlugin
	exports  map[string]bool
	rec      *recorder
}

func newExtismHost(ctx context.Context, wasm []byte, cache wazero.CompilationCache) (*extismHost, error) {
	probe := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(cache))
	defer probe.Close(ctx)
	cm, err := probe.CompileModule(ctx, wasm)
	if err != nil {
		return nil, err
	}
	h := &extismHost{exports: map[string]bool{}, rec: &recorder{}}
	for n := range cm.ExportedFunctions() {
		h.exports[n] = true
	}
	var funcs []extism.HostFunction
	for _, def := range userImports(cm) {
		_, fn, _ := def.Import()
		f := extism.NewHostFunctionWithStack(fn, func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			arg := ""
			if len(def.ParamTypes()) > 0 {
				b, _ := p.ReadBytes(stack[0])
				arg = string(b)
			}
			h.rec.add(&h.rec.hostfns, fn+"("+arg+")")
			for i := range def.ResultTypes() {
				stack[i] = 0
			}
		}, def.ParamTypes(), def.ResultTypes())
		funcs = append(funcs, f)
	}
	h.compiled, err = extism.NewCompiledPlugin(ctx, extism.Manifest{
		Wasm:         []extism.Wasm{extism.WasmData{Data: wasm, Name: "main"}},
		Config:       diffConfig,
		AllowedHosts: []string{allowedHost},
		Memory:       &extism.ManifestMemory{MaxPages: 512, MaxVarBytes: 1 << 20, MaxHttpResponseBytes: 1 << 20},
	}, extism.PluginConfig{RuntimeConfig: runtimeConfig(cache), EnableWasi: needsWASI(cm), EnableHttpResponseHeaders: true}, funcs)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (h *extismHost) close() { h.compiled.Close(context.Background()) }

func (h *extismHost) call(t *testing.T, export string, input []byte, stub *stubServer) observed {
	ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
	defer cancel()
	var out bytes.Buffer
	*h.rec = recorder{}
	inst, err := h.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: moduleConfig(&out)})
	if err != nil {
		return observed{err: "instantiate: " + strings.TrimPrefix(err.Error(), "instantiating module: ")}
	}
	defer inst.Close(context.Background())
	inst.SetLogger(func(level extism.LogLevel, msg string) {
		if !extismOwnLog(msg) {
			h.rec.add(&h.rec.logs, fmt.Sprintf("%d %s", level.ExtismCompat(), msg))
		}
	})
	var o observed
	var cerr error
	o.rc, o.out, cerr = inst.CallWithContext(ctx, export, input)
	if cerr != nil {
		o.err = cerr.Error()
	}
	o.stdout, o.logs, o.hostfns = out.String(), h.rec.logs, h.rec.hostfns
	o.vars = sortedVars(inst.Var)
	o.requests = stub.take()
	return o
}

// extismOwnLog reports go-sdk's own debug messages, which its logger
// receives beside the guest's.
func extismOwnLog(msg string) bool {
	for _, p := range []string{"Calling ", "Initializing runtime", "Initialized Haskell", "WASI runtime detected",
		"Reactor module detected", "Command module detected", "No runtime detected", "Haskell runtime detected", "Error running reactor"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// ownHost is this package on plain wazero.
type ownHost struct {
	rt   wazero.Runtime
	cm   wazero.CompiledModule
	init Init
	rec  *recorder
}

func newOwnHost(ctx context.Context, wasm []byte, cache wazero.CompilationCache) (*ownHost, error) {
	h := &ownHost{rt: wazero.NewRuntimeWithConfig(ctx, runtimeConfig(cache)), rec: &recorder{}}
	cm, err := h.rt.CompileModule(ctx, wasm)
	if err != nil {
		h.rt.Close(ctx)
		return nil, err
	}
	wasi := needsWASI(cm)
	if wasi {
		wasi_snapshot_preview1.MustInstantiate(ctx, h.rt)
	}
	if err := Instantiate(ctx, h.rt); err != nil {
		h.rt.Close(ctx)
		return nil, err
	}
	if defs := userImports(cm); len(defs) > 0 {
		b := h.rt.NewHostModuleBuilder("extism:host/user")
		for _, def := range defs {
			_, fn, _ := def.Import()
			b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				arg := ""
				if len(def.ParamTypes()) > 0 {
					if blk, ok := From(ctx).Kernel.Block(stack[0]); ok {
						arg = string(blk)
					}
				}
				h.rec.add(&h.rec.hostfns, fn+"("+arg+")")
				for i := range def.ResultTypes() {
					stack[i] = 0
				}
			}), def.ParamTypes(), def.ResultTypes()).Export(fn)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			h.rt.Close(ctx)
			return nil, err
		}
	}
	h.cm, h.init = cm, DetectInit(cm, wasi)
	return h, nil
}

func (h *ownHost) close() { h.rt.Close(context.Background()) }

func (h *ownHost) call(t *testing.T, export string, input []byte, stub *stubServer) observed {
	ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
	defer cancel()
	var out bytes.Buffer
	*h.rec = recorder{}
	mod, err := h.rt.InstantiateModule(ctx, h.cm, moduleConfig(&out).WithStartFunctions().WithName(""))
	if err != nil {
		return observed{err: "instantiate: " + err.Error()}
	}
	defer mod.Close(context.Background())
	k := NewKernel(nil, 512*pageSize)
	in := NewInstance(mod, k, h.init)
	in.Config, in.LogLevel, in.HTTP = diffConfig, LevelTrace, &testHTTP{}
	in.Log = func(level Level, msg string) { h.rec.add(&h.rec.logs, fmt.Sprintf("%d %s", level, msg)) }
	var o observed
	var cerr error
	o.rc, o.out, cerr = in.Run(With(ctx, in), export, input)
	if cerr != nil {
		o.err = cerr.Error()
	}
	o.stdout, o.logs, o.hostfns = out.String(), h.rec.logs, h.rec.hostfns
	o.vars = sortedVars(in.Vars())
	o.requests = stub.take()
	return o
}

// testHTTP serves the HTTP functions as go-sdk does, for the stub's host
// only (mcpwasm's own hook is host/netguard's, tested in host/plugin).
type testHTTP struct {
	status  int32
	headers map[string]string
}

func (h *testHTTP) Request(ctx context.Context, in *Instance, request, body uint64) uint64 {
	h.status, h.headers = 0, map[string]string{}
	raw, err := readBlock(in.Kernel, request)
	if err != nil {
		panic(fmt.Errorf("failed to read http request from memory: %v", err))
	}
	var req struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Method  string            `json:"method"`
	}
	err = json.Unmarshal(raw, &req)
	in.Kernel.Free(request)
	if err != nil {
		panic(fmt.Errorf("invalid http request: %v", err))
	}
	if req.Method == "" {
		req.Method = "GET"
	}
	req.Method = strings.ToUpper(req.Method)
	u, err := url.Parse(req.URL)
	if err != nil {
		panic(fmt.Errorf("invalid url: %v", err))
	}
	if u.Hostname() != allowedHost {
		panic(fmt.Errorf("HTTP request to '%v' is not allowed", req.URL))
	}
	var r io.Reader
	if body != 0 {
		b, err := readBlock(in.Kernel, body)
		if err != nil {
			panic("failed to read response body from memory")
		}
		in.Kernel.Free(body)
		r = bytes.NewReader(b)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, r)
	if err != nil {
		panic(err)
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		h.headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	h.status = int32(resp.StatusCode)
	b, err := io.ReadAll(http.MaxBytesReader(nil, resp.Body, 1<<20))
	if err != nil {
		panic(err)
	}
	if len(b) == 0 {
		return 0
	}
	hb, ok := in.Kernel.Write(b)
	if !ok {
		panic("Failed to write resposne body to memory")
	}
	return hb
}

func (h *testHTTP) StatusCode(context.Context, *Instance) int32 { return h.status }

func (h *testHTTP) Headers(_ context.Context, in *Instance) uint64 {
	if h.headers == nil {
		return 0
	}
	b, _ := json.Marshal(h.headers)
	hb, _ := in.Kernel.Write(b)
	return hb
}
