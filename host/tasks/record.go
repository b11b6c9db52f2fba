// Package tasks keeps the tasks of MCP's io.modelcontextprotocol/tasks
// extension (SEP-2663, protocol 2026-07-28): a tool call that runs detached
// from the request that started it, whose status, input requests and
// outcome a client reads with tasks/get, answers with tasks/update and
// stops with tasks/cancel.
//
// The package knows nothing of MCP's wire or of plugins: a Manager runs
// Runners (the server's closure over a tool call) and keeps Records in a
// Store, in memory for one process (NewMemoryStore) or shared by replicas
// (package tasks/redisstore). Whichever replica runs a task holds a lease
// on it and renews it; a task whose lease lapses (its replica died) ends
// failed, so no task stays working forever.
package tasks

import (
	"encoding/json"
	"errors"
	"time"
)

// Status is a task's state. working and input_required are live; the
// others are terminal.
type Status string

// The statuses of SEP-2663.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether a task in status s has ended.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Error is a failed task's error, in JSON-RPC's shape.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Record is a task as the store keeps it.
type Record struct {
	ID        string    `json:"id"`
	Owner     string    `json:"owner"` // the principal that created it ("" unauthenticated)
	Status    Status    `json:"status"`
	Message   string    `json:"message,omitempty"` // statusMessage
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// TTL is how long the record lives from its creation (ttlMs).
	TTL time.Duration `json:"ttl"`
	// Spec is what to run, opaque to this package: the Manager hands it to
	// its Factory, on whichever replica (re)starts the task.
	Spec json.RawMessage `json:"spec"`
	// Result is a completed task's tool result; Err a failed task's error.
	Result json.RawMessage `json:"result,omitempty"`
	Err    *Error          `json:"error,omitempty"`
	// Inputs are the requests an input_required task waits on, by key;
	// Answers the client's answers so far (every round's).
	Inputs  map[string]json.RawMessage `json:"inputs,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	// CancelRequested is set by tasks/cancel for the running replica.
	CancelRequested bool `json:"cancel,omitempty"`
	// Holder is the replica running the task, and LeaseUntil when its
	// lease lapses unless renewed. Both are empty when nothing runs.
	Holder     string    `json:"holder,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
	// Run counts the runs started: a renewal or an outcome from an older
	// run (one a cancel or a lapse overtook) is discarded.
	Run int `json:"run"`
}

// ExpiresAt is when the record may be forgotten.
func (r *Record) ExpiresAt() time.Time { return r.CreatedAt.Add(r.TTL) }

// Errors a Store or Manager returns.
var (
	// ErrNotFound: no such task, it expired, or another principal owns it.
	ErrNotFound = errors.New("no such task")
	// ErrTooMany: the principal has as many live tasks as allowed.
	ErrTooMany = errors.New("too many tasks")
	// ErrFull: the store keeps as many records as it may.
	ErrFull = errors.New("the task store is full")
	// ErrTooLarge: the record would exceed the store's size cap.
	ErrTooLarge = errors.New("task record too large")
)
