package hostenv

import (
	"context"
	"fmt"
	"math"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Namespace is the import module the functions are served under.
const Namespace = "extism:host/env"

// Level is a log level, numbered as get_log_level answers it.
type Level int32

// The log levels. LevelOff, the default, delivers nothing.
const (
	LevelTrace Level = 0
	LevelDebug Level = 1
	LevelInfo  Level = 2
	LevelWarn  Level = 3
	LevelError Level = 4
	LevelOff   Level = math.MaxInt32
)

// String names the level.
func (l Level) String() string {
	switch l {
	case LevelTrace:
		return "trace"
	case LevelDebug:
		return "debug"
	case LevelInfo:
		return "info"
	case LevelWarn:
		return "warn"
	case LevelError:
		return "error"
	}
	return "off"
}

// HTTP serves http_request, http_status_code and http_headers for an
// instance. Handles are the instance's kernel blocks.
type HTTP interface {
	Request(ctx context.Context, in *Instance, request, body uint64) uint64
	StatusCode(ctx context.Context, in *Instance) int32
	Headers(ctx context.Context, in *Instance) uint64
}

// Instance is what the functions serve one guest instance from: its
// kernel memory, vars and configuration, and the hooks for logs and HTTP.
// A call's context carries it (With); one instance may serve several
// calls in turn (Run), never two at once.
type Instance struct {
	// Module is the guest's instance.
	Module api.Module
	// Kernel is its kernel memory.
	Kernel *Kernel
	// Config is what config_get answers.
	Config map[string]string
	// MaxVarBytes bounds the vars together (Extism's accounting); 0
	// disables var_set.
	MaxVarBytes int64
	// Log receives log_* messages at LogLevel or above; nil drops them.
	Log      func(Level, string)
	LogLevel Level
	// HTTP serves the HTTP functions; nil traps them.
	HTTP HTTP
	// Host is the embedding package's state for the running call.
	Host any

	vars        map[string][]byte
	init        Init
	initialized bool
	inputOffset uint64 // where Run put the input (input_load_u64 reads there)
}

// NewInstance returns the state of a guest instance, mod, whose runtime
// init is init, with kernel memory k.
func NewInstance(mod api.Module, k *Kernel, init Init) *Instance {
	return &Instance{Module: mod, Kernel: k, init: init, LogLevel: LevelOff, MaxVarBytes: 1 << 20}
}

// Vars returns the instance's vars (read-only).
func (in *Instance) Vars() map[string][]byte { return in.vars }

type instanceKey struct{}

// With returns ctx carrying in for the functions.
func With(ctx context.Context, in *Instance) context.Context {
	return context.WithValue(ctx, instanceKey{}, in)
}

// From returns the instance ctx carries, or nil.
func From(ctx context.Context) *Instance {
	in, _ := ctx.Value(instanceKey{}).(*Instance)
	return in
}

// Func is one function of the namespace.
type Func struct {
	Name            string
	Params, Results []api.ValueType
	serve           func(ctx context.Context, in *Instance, stack []uint64)
}

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

func types(ts ...api.ValueType) []api.ValueType { return ts }

// Funcs is the namespace, in the package doc's order. It feeds both the
// host module (Instantiate) and the load-time import check (Lookup).
var Funcs = []Func{
	{"alloc", types(i64), types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.Alloc(s[0]) }},
	{"free", types(i64), nil, func(_ context.Context, in *Instance, s []uint64) { in.Kernel.Free(s[0]) }},
	{"length", types(i64), types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.Length(s[0]) }},
	{"length_unsafe", types(i64), types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.LengthUnsafe(s[0]) }},
	{"load_u8", types(i64), types(i32), func(_ context.Context, in *Instance, s []uint64) { s[0] = uint64(in.Kernel.LoadU8(s[0])) }},
	{"store_u8", types(i64, i32), nil, func(_ context.Context, in *Instance, s []uint64) { in.Kernel.StoreU8(s[0], byte(s[1])) }},
	{"load_u64", types(i64), types(i64), loadU64},
	{"store_u64", types(i64, i64), nil, storeU64},
	{"input_load_u8", types(i64), types(i32), func(_ context.Context, in *Instance, s []uint64) { s[0] = uint64(in.Kernel.InputLoadU8(s[0])) }},
	{"input_load_u64", types(i64), types(i64), inputLoadU64},
	{"input_length", nil, types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.InputLength() }},
	{"input_offset", nil, types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.InputOffset() }},
	{"input_set", types(i64, i64), nil, func(_ context.Context, in *Instance, s []uint64) { in.Kernel.InputSet(s[0], s[1]) }},
	{"output_set", types(i64, i64), nil, func(_ context.Context, in *Instance, s []uint64) { in.Kernel.OutputSet(s[0], s[1]) }},
	{"output_length", nil, types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.OutputLength() }},
	{"output_offset", nil, types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.OutputOffset() }},
	{"reset", nil, nil, func(_ context.Context, in *Instance, _ []uint64) { in.Kernel.Reset() }},
	{"error_set", types(i64), nil, func(_ context.Context, in *Instance, s []uint64) { in.Kernel.ErrorSet(s[0]) }},
	{"error_get", nil, types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.ErrorGet() }},
	{"memory_bytes", nil, types(i64), func(_ context.Context, in *Instance, s []uint64) { s[0] = in.Kernel.MemoryBytes() }},
	{"config_get", types(i64), types(i64), configGet},
	{"var_get", types(i64), types(i64), varGet},
	{"var_set", types(i64, i64), nil, varSet},
	{"http_request", types(i64, i64), types(i64), func(ctx context.Context, in *Instance, s []uint64) {
		s[0] = httpHost(in).Request(ctx, in, s[0], s[1])
	}},
	{"http_status_code", nil, types(i32), func(ctx context.Context, in *Instance, s []uint64) {
		s[0] = uint64(uint32(httpHost(in).StatusCode(ctx, in)))
	}},
	{"http_headers", nil, types(i64), func(ctx context.Context, in *Instance, s []uint64) { s[0] = httpHost(in).Headers(ctx, in) }},
	{"get_log_level", nil, types(i32), func(_ context.Context, in *Instance, s []uint64) { s[0] = uint64(uint32(in.LogLevel)) }},
	logFunc("log_trace", LevelTrace),
	logFunc("log_debug", LevelDebug),
	logFunc("log_info", LevelInfo),
	logFunc("log_warn", LevelWarn),
	logFunc("log_error", LevelError),
}

// Lookup returns the function of the namespace called name.
func Lookup(name string) (Func, bool) {
	for _, f := range Funcs {
		if f.Name == name {
			return f, true
		}
	}
	return Func{}, false
}

// Instantiate adds the namespace's host module to r. Each function finds
// its instance in the call's context (With), and panics without one.
func Instantiate(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder(Namespace)
	for _, f := range Funcs {
		serve := f.serve
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
			in := From(ctx)
			if in == nil {
				panic("extism:host/env called outside a call")
			}
			serve(ctx, in, stack)
		}), f.Params, f.Results).Export(f.Name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// The 8-byte accessors are go-sdk's own Go functions, not the kernel's:
// no bounds check below the root, a wasm32 address, a trap past the end
// with go-sdk's message.

func loadU64(_ context.Context, in *Instance, s []uint64) {
	v, ok := in.Kernel.Read(uint64(uint32(s[0])), 8)
	if !ok {
		panic("could not read value at offset: 0")
	}
	s[0] = le64(v)
}

func storeU64(_ context.Context, in *Instance, s []uint64) {
	v, ok := in.Kernel.Read(uint64(uint32(s[0])), 8)
	if !ok {
		panic(fmt.Sprintf("could not write value '%v' at offset: %v", s[1], s[0]))
	}
	putLE64(v, s[1])
}

func inputLoadU64(_ context.Context, in *Instance, s []uint64) {
	v, ok := in.Kernel.Read(uint64(uint32(s[0]+in.inputOffset)), 8)
	if !ok {
		panic("could not read value at offset: 0")
	}
	s[0] = le64(v)
}

// readBlock is go-sdk's CurrentPlugin.ReadBytes: the block's bytes
// copied, or an error if they lie outside the memory.
func readBlock(k *Kernel, h uint64) ([]byte, error) {
	b, ok := k.Block(h)
	if !ok {
		return nil, fmt.Errorf("invalid memory block")
	}
	return append([]byte{}, b...), nil
}

func configGet(_ context.Context, in *Instance, s []uint64) {
	name, err := readBlock(in.Kernel, s[0])
	if err != nil {
		panic(fmt.Errorf("failed to read config name from memory: %v", err))
	}
	value, ok := in.Config[string(name)]
	if !ok {
		s[0] = 0
		return
	}
	s[0], _ = in.Kernel.Write([]byte(value))
}

func varGet(_ context.Context, in *Instance, s []uint64) {
	name, err := readBlock(in.Kernel, s[0])
	if err != nil {
		panic(fmt.Errorf("failed to read var name from memory: %v", err))
	}
	in.Kernel.Free(s[0])
	value, ok := in.vars[string(name)]
	if !ok {
		s[0] = 0
		return
	}
	s[0], _ = in.Kernel.Write(value)
}

// varEntryBytes is what Extism charges each var beside its name and
// value: the size of a Go slice header and a string header.
const varEntryBytes = 24 + 16

func varSet(_ context.Context, in *Instance, s []uint64) {
	if in.MaxVarBytes == 0 {
		panic("Vars are disabled by this host")
	}
	name, err := readBlock(in.Kernel, s[0])
	if err != nil {
		panic(fmt.Errorf("failed to read var name from memory: %v", err))
	}
	in.Kernel.Free(s[0])
	if s[1] == 0 {
		delete(in.vars, string(name))
		return
	}
	value, err := readBlock(in.Kernel, s[1])
	if err != nil {
		panic(fmt.Errorf("failed to read var value from memory: %v", err))
	}
	in.Kernel.Free(s[1])
	size := varEntryBytes + len(name) + len(value)
	for k, v := range in.vars {
		size += len(k) + len(v) + varEntryBytes
	}
	if size >= int(in.MaxVarBytes) {
		panic("Variable store is full")
	}
	if in.vars == nil {
		in.vars = map[string][]byte{}
	}
	in.vars[string(name)] = value
}

func logFunc(name string, level Level) Func {
	return Func{name, types(i64), nil, func(_ context.Context, in *Instance, s []uint64) {
		if level < in.LogLevel || in.Log == nil {
			in.Kernel.Free(s[0])
			return
		}
		msg, err := readBlock(in.Kernel, s[0])
		if err != nil {
			panic(fmt.Errorf("failed to read log message from memory: %v", err))
		}
		in.Log(level, string(msg))
		in.Kernel.Free(s[0])
	}}
}

// noHTTP refuses every request, as Extism does with no allowed hosts.
type noHTTP struct{}

func (noHTTP) Request(context.Context, *Instance, uint64, uint64) uint64 {
	panic("HTTP requests are not allowed by this host")
}
func (noHTTP) StatusCode(context.Context, *Instance) int32 { return 0 }
func (noHTTP) Headers(context.Context, *Instance) uint64   { return 0 }

func httpHost(in *Instance) HTTP {
	if in.HTTP == nil {
		return noHTTP{}
	}
	return in.HTTP
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func putLE64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}
