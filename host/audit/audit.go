// Package audit writes mcpwasm's audit log: one JSON line per tool call,
// one per denial (authentication, rate limit, filesystem escape, network),
// one per network request a plugin makes and, with [server.policy], one
// per policy decision.
//
// A Log is safe for concurrent use and nil-safe: code that may or may not
// have an audit log records through FromContext(ctx).Record(...) and a nil
// Log drops the event. Arguments are recorded only when the operator asks.
package audit

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Kinds of event.
const (
	KindCall   = "call"
	KindDenial = "denial"
	// KindNet is a plugin's network request that was allowed (Outcome "ok",
	// Attrs host, ip, status, bytes) or failed (Outcome the failure);
	// refused ones are KindDenial with Denial DenyNet.
	KindNet = "net"
	// KindTrust is what host/trust and the result scan did to what a
	// plugin tells the model: Outcome "hold", "approval", "refusal",
	// "redaction", "block" or "strip"; Tool the declaration (or the tool
	// whose result was changed), Reason why (never a secret's value).
	KindTrust = "trust"
	// KindPolicy is a decision of the Cedar policies ([server.policy]) on a
	// call, read, get or completion: Decision "allow" or "deny", Policies
	// the ids of the policies that decided it, Reason a denial's message.
	KindPolicy = "policy"
)

// Decisions of a KindPolicy event.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
)

// Denial kinds: what was refused.
const (
	DenyAuth      = "auth"
	DenyRateLimit = "rate_limit"
	DenyFS        = "fs"
	DenyNet       = "net"
)

// Event is one audit line. Zero fields are left out of the JSON.
type Event struct {
	Time time.Time `json:"time"`
	// Kind is KindCall, KindDenial or KindNet.
	Kind string `json:"kind"`
	// Session is the MCP session id, when there is one.
	Session string `json:"session,omitempty"`
	// Principal is who called: a static token's name or a JWT subject.
	Principal string `json:"principal,omitempty"`
	// Remote is the client's address, for HTTP.
	Remote string `json:"remote,omitempty"`
	// Plugin, its file's SHA256 and the tool (or resource URI, prompt name).
	Plugin string `json:"plugin,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Method is the MCP method (tools/call, resources/read, prompts/get).
	Method string `json:"method,omitempty"`
	// DurationMs is how long the call took.
	DurationMs float64 `json:"duration_ms,omitempty"`
	// Outcome is "ok" or the ABI error category of a failed call.
	Outcome string `json:"outcome,omitempty"`
	// InputBytes and OutputBytes are the sizes of arguments and result.
	InputBytes  int `json:"input_bytes,omitempty"`
	OutputBytes int `json:"output_bytes,omitempty"`
	// Decision and Policies: a KindPolicy event's outcome and the ids of
	// the policies that decided it.
	Decision string   `json:"decision,omitempty"`
	Policies []string `json:"policies,omitempty"`
	// Denial is what was refused (DenyAuth, DenyNet...), Reason why.
	Denial string `json:"denial,omitempty"`
	Reason string `json:"reason,omitempty"`
	// TraceParent is the request's W3C traceparent, when it sent one.
	TraceParent string `json:"traceparent,omitempty"`
	// Attrs holds kind-specific detail: for a network request the host,
	// IP, status and bytes; for a filesystem denial the path.
	Attrs map[string]any `json:"attrs,omitempty"`
	// Arguments are the call's arguments, only if the Log records them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Log writes events as JSON lines to a writer and hands each to its
// observers (metrics count denials this way, whether or not a file is kept).
type Log struct {
	mu        sync.Mutex
	w         io.Writer // nil: no file, observers only
	args      bool
	observers []func(Event)
	redact    func(string) string
}

// Redact makes every line written pass through f first (the server's known
// secrets replaced, host/secrets). Observers get the event as recorded.
// Call it before the Log is shared.
func (l *Log) Redact(f func(string) string) {
	if l != nil {
		l.redact = f
	}
}

// New returns a Log writing to w (nil: write nothing, only notify
// observers). With withArguments, call events keep their arguments;
// otherwise Arguments is always dropped.
func New(w io.Writer, withArguments bool) *Log {
	return &Log{w: w, args: withArguments}
}

// Observe adds f, called with every event recorded from then on, in the
// recording goroutine. Call it before the Log is shared.
func (l *Log) Observe(f func(Event)) {
	l.observers = append(l.observers, f)
}

// Record writes one event. A zero Time is set to now. Write errors are
// dropped: the audit log must never fail a call.
func (l *Log) Record(e Event) {
	if l == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if !l.args {
		e.Arguments = nil
	}
	for _, f := range l.observers {
		f(e)
	}
	if l.w == nil {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	if l.redact != nil {
		b = []byte(l.redact(string(b)))
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b)
}

type ctxKey struct{}

// WithLog returns a context carrying l, for code below the server (the
// sandbox's network and filesystem guards) to record denials.
func WithLog(ctx context.Context, l *Log) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// FromContext returns the context's Log, or nil (which drops events).
func FromContext(ctx context.Context) *Log {
	l, _ := ctx.Value(ctxKey{}).(*Log)
	return l
}
