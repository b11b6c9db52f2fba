package isolate

import (
	"encoding/json"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate/internal/frame"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Frame kinds. Server to worker: spec, wasm, call, list, cancel, reply,
// probe. Worker to server: ready, result, callback, probed.
const (
	kindSpec     byte = 1 + iota // id 0: the worker's spec (JSON)
	kindWasm                     // id 0: the module's bytes
	kindReady                    // id 0: loaded (readyMsg)
	kindCall                     // id: call; Pack(callMsg, input)
	kindList                     // id: call; Pack(callMsg, input), through plugin.List
	kindCancel                   // id: call
	kindResult                   // id: call; Pack(resultMsg, output)
	kindCallback                 // id: callback; Pack(callbackMsg, payload)
	kindReply                    // id: callback; Pack(replyMsg, result)
	kindProbe                    // id: probe; the escape probes (probe builds only)
	kindProbed                   // id: probe; JSON []ProbeResult
)

// workerFrameCap bounds what a worker accepts from the server (which it
// trusts: the module itself comes in one frame).
const workerFrameCap = 1 << 30

// serverFrameCap bounds what the server accepts from a worker: the largest
// output the plugin may give, plus room for the header, or a host-function
// payload (1 MiB).
func serverFrameCap(maxOutput int) int {
	return max(maxOutput, 1<<20) + 64<<10
}

// spec is what a worker is told about its one plugin: nothing of any other.
type spec struct {
	Name        string               `json:"name"`
	Source      string               `json:"source"`
	SHA256      string               `json:"sha256"`
	TaskModes   map[string]string    `json:"task_modes,omitempty"`
	Timeout     time.Duration        `json:"timeout"`
	MemoryLimit uint64               `json:"memory_limit"`
	MaxOutput   int                  `json:"max_output"`
	Concurrency int                  `json:"concurrency"`
	GuestConfig map[string]string    `json:"guest_config,omitempty"`
	Grants      []grantSpec          `json:"grants,omitempty"`
	NetGrants   []netguard.Grant     `json:"net_grants,omitempty"`
	NetLimits   netguard.Limits      `json:"net_limits"`
	Interrupts  plugin.InterruptMode `json:"interrupts"`
	CacheDir    string               `json:"cache_dir"`
	Confine     confine.Mode         `json:"confine"`
	LogLevel    int                  `json:"log_level"`
	// Check: confine, make validate --confine's attempts, report, exit;
	// CheckWriteDir is the folder outside the policy to try writing into.
	Check         bool   `json:"check,omitempty"`
	CheckWriteDir string `json:"check_write_dir,omitempty"`
	DataLimit     uint64 `json:"data_limit"` // RLIMIT_DATA, bytes (0: none)
}

type grantSpec struct {
	Path     string `json:"path"`
	ReadOnly bool   `json:"read_only"`
}

type readyMsg struct {
	ABIVersion int               `json:"abi_version"`
	Confined   string            `json:"confined"` // confine.Report.String()
	DataLimit  uint64            `json:"data_limit,omitempty"`
	Attempts   []confine.Attempt `json:"attempts,omitempty"`
	Missing    []string          `json:"missing,omitempty"`
	Error      string            `json:"error,omitempty"`
}

type callMsg struct {
	Export    string      `json:"export"`
	Mounts    []abi.Mount `json:"mounts,omitempty"`
	TimeoutMs int64       `json:"timeout_ms,omitempty"`
	// Trace is the server's span of the call (tracing.Carrier), when the
	// call is traced: the worker's spans continue it.
	Trace map[string]string `json:"trace,omitempty"`
}

// wireError is a *plugin.Error on the wire.
type wireError struct {
	Category abi.ErrorCategory `json:"category"`
	Message  string            `json:"message"`
	Details  map[string]any    `json:"details,omitempty"`
}

type resultMsg struct {
	Error *wireError `json:"error,omitempty"`
	// CPUNs and MemoryPeak are the call's plugin.CallRecord figures, for
	// the server's span of the call.
	CPUNs      int64  `json:"cpu_ns,omitempty"`
	MemoryPeak uint64 `json:"memory_peak,omitempty"`
}

// Callback kinds: the plugin.Callbacks methods.
const (
	cbProgress = "progress"
	cbLog      = "log"
	cbRequest  = "request"
	cbNotify   = "notify"
	// cbAudit carries an audit event the sandbox's guards recorded in the
	// worker (a denial, a network request) to the call's audit log.
	cbAudit = "audit"
	// cbSpan carries a span the worker ended (tracing.RelayedSpan) to be
	// exported in the call's trace.
	cbSpan = "span"
)

type callbackMsg struct {
	Call     uint64 `json:"call"`
	Kind     string `json:"kind"`
	Function string `json:"function,omitempty"`
}

type replyMsg struct {
	HostError *abi.HostError `json:"host_error,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// ProbeTargets are what the escape probes try, in a worker that acts as if
// its guest had escaped wazero: its Go code makes the system calls a guest
// would then make.
type ProbeTargets struct {
	Read    []string `json:"read,omitempty"`     // files to read (another plugin's, the config, tokens, state key)
	Write   []string `json:"write,omitempty"`    // folders to create a file in
	Connect []int    `json:"connect,omitempty"`  // 127.0.0.1 TCP ports to connect to
	Exec    string   `json:"exec,omitempty"`     // a program to run
	GrowMiB int      `json:"grow_mib,omitempty"` // reserve this much and make it writable, as the memory allocator grows a memory
	Signal  int      `json:"signal,omitempty"`   // a process to signal (signal 0: the right, not the act): the server
	Ptrace  int      `json:"ptrace,omitempty"`   // a process to ptrace-attach (left stopped if that works)
}

// ProbeResult is one escape attempt made in a worker (probe builds only).
type ProbeResult struct {
	What string `json:"what"`
	// Errno is the error number the kernel answered, 0 if it succeeded.
	Errno int `json:"errno"`
	// Err is the error's text ("" if it succeeded).
	Err string `json:"err,omitempty"`
}

func packJSON(v any, raw []byte) []byte {
	h, _ := json.Marshal(v)
	return frame.Pack(h, raw)
}

func unpackJSON(p []byte, v any) ([]byte, error) {
	h, raw, err := frame.Unpack(p)
	if err != nil {
		return nil, err
	}
	return raw, json.Unmarshal(h, v)
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
