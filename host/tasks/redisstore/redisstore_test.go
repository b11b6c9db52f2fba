package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/mcpwasm/mcpwasm/host/tasks/redisstore"
	"github.com/mcpwasm/mcpwasm/internal/redistest"
)

// open connects a store to the shared Redis at addr, for a test or a
// benchmark.
func open(tb testing.TB, addr string, maxSize int) *redisstore.Store {
	tb.Helper()
	st, err := redisstore.Open(context.Background(), addr, maxSize)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// replica is a Manager over its own connection to the shared Redis.
func replica(t *testing.T, addr, name string, o tasks.Options, run tasks.Runner) *tasks.Manager {
	t.Helper()
	o.Store = open(t, addr, 1<<20)
	o.Replica = name
	o.Factory = func(json.RawMessage) (tasks.Runner, error) { return run, nil }
	m, err := tasks.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func await(t *testing.T, m *tasks.Manager, id string, want tasks.Status) *tasks.Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := m.Get(context.Background(), "", id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == want || r.Status.Terminal() {
			if r.Status != want {
				t.Fatalf("task %s ended %s (%s), want %s", id, r.Status, r.Message, want)
			}
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s stays %s, want %s", id, r.Status, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var ok = json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)

// A task created through one replica is read, answered and completed
// through another; its result is the runner's.
func TestSharedAcrossReplicas(t *testing.T) {
	addr := redistest.Start(t)
	run := func(_ context.Context, answers map[string]json.RawMessage) tasks.Outcome {
		if _, ok := answers["q"]; !ok {
			return tasks.Outcome{Inputs: map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)}}
		}
		return tasks.Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"answer ` + string(answers["q"]) + `"}]}`)}
	}
	a := replica(t, addr, "a", tasks.Options{}, run)
	b := replica(t, addr, "b", tasks.Options{}, run)
	ctx := context.Background()
	r, err := a.Create(ctx, "", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	await(t, b, r.ID, tasks.InputRequired)
	if err := b.Update(ctx, "", r.ID, map[string]json.RawMessage{"q": json.RawMessage(`42`)}); err != nil {
		t.Fatal(err)
	}
	got := await(t, a, r.ID, tasks.Completed)
	if !strings.Contains(string(got.Result), "answer 42") {
		t.Fatalf("%s", got.Result)
	}
}

// A cancel through replica b stops the guest running on replica a, by
// pub/sub, long before a's next lease renewal.
func TestCancelReachesRunningReplica(t *testing.T) {
	addr := redistest.Start(t)
	stopped := make(chan time.Time, 1)
	run := func(ctx context.Context, _ map[string]json.RawMessage) tasks.Outcome {
		<-ctx.Done()
		stopped <- time.Now()
		return tasks.Outcome{Result: ok}
	}
	o := tasks.Options{Lease: time.Minute} // renewals every 20s: only pub/sub can be this quick
	a := replica(t, addr, "a", o, run)
	b := replica(t, addr, "b", o, run)
	r, _ := a.Create(context.Background(), "", json.RawMessage(`{}`), nil) // a subscribed before its first run
	if err := b.Cancel(context.Background(), "", r.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("replica a did not stop the task cancelled through b")
	}
	await(t, a, r.ID, tasks.Cancelled)
}

// A task whose replica stops renewing its lease ends failed, read through
// any replica.
func TestLapsedLeaseFailsTask(t *testing.T) {
	addr := redistest.Start(t)
	st := open(t, addr, 0)
	defer st.Close()
	now := time.Now().UTC()
	st.Create(context.Background(), &tasks.Record{ID: "t1", Status: tasks.Working, CreatedAt: now, UpdatedAt: now,
		TTL: time.Hour, Holder: "gone", LeaseUntil: now.Add(-time.Second), Run: 1}, 0)
	b := replica(t, addr, "b", tasks.Options{}, nil)
	got, err := b.Get(context.Background(), "", "t1")
	if err != nil || got.Status != tasks.Failed || !strings.Contains(got.Err.Message, "gone") {
		t.Fatalf("%+v %v", got, err)
	}
	if ids, _ := st.Live(context.Background()); len(ids) != 0 {
		t.Fatalf("a failed task is still live: %v", ids)
	}
}

// The per-principal cap counts live tasks across replicas.
func TestCapAcrossReplicas(t *testing.T) {
	addr := redistest.Start(t)
	run := func(ctx context.Context, _ map[string]json.RawMessage) tasks.Outcome {
		<-ctx.Done()
		return tasks.Outcome{Result: ok}
	}
	o := tasks.Options{PerPrincipal: 2}
	a := replica(t, addr, "a", o, run)
	b := replica(t, addr, "b", o, run)
	ctx := context.Background()
	first, _ := a.Create(ctx, "alice", json.RawMessage(`{}`), nil)
	if _, err := b.Create(ctx, "alice", json.RawMessage(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, "alice", json.RawMessage(`{}`), nil); !errors.Is(err, tasks.ErrTooMany) {
		t.Fatalf("third: %v", err)
	}
	if _, err := a.Create(ctx, "bob", json.RawMessage(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	b.Cancel(ctx, "alice", first.ID)
	if _, err := b.Create(ctx, "alice", json.RawMessage(`{}`), nil); err != nil {
		t.Fatalf("after a cancel: %v", err)
	}
}

// Records expire with their ttl, and a result over the size cap fails the
// task instead of being stored.
func TestExpiryAndSizeCap(t *testing.T) {
	addr := redistest.Start(t)
	big := func(context.Context, map[string]json.RawMessage) tasks.Outcome {
		return tasks.Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 8192) + `"}]}`)}
	}
	o := tasks.Options{TTL: 1500 * time.Millisecond, Timeout: time.Second, Store: open(t, addr, 4096), Replica: "a",
		Factory: func(json.RawMessage) (tasks.Runner, error) { return big, nil }}
	m, err := tasks.New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r, _ := m.Create(context.Background(), "", json.RawMessage(`{}`), nil)
	got := await(t, m, r.ID, tasks.Failed)
	if !strings.Contains(got.Err.Message, "size limit") {
		t.Fatalf("%+v", got.Err)
	}
	time.Sleep(1600 * time.Millisecond)
	if _, err := m.Get(context.Background(), "", r.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("after its ttl: %v", err)
	}
}
