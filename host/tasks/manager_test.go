package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// runners maps a spec (a JSON string) to a test runner.
type runners map[string]Runner

func (r runners) factory(spec json.RawMessage) (Runner, error) {
	var name string
	json.Unmarshal(spec, &name)
	if f, ok := r[name]; ok {
		return f, nil
	}
	return nil, errors.New("no runner " + name)
}

func spec(name string) json.RawMessage { b, _ := json.Marshal(name); return b }

func newManager(t *testing.T, o Options, rs runners) *Manager {
	t.Helper()
	o.Factory = rs.factory
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// await polls until task id of owner reaches a status in want.
func await(t *testing.T, m *Manager, owner, id string, want ...Status) *Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := m.Get(context.Background(), owner, id)
		if err != nil {
			t.Fatalf("get %s: %v", id, err)
		}
		for _, s := range want {
			if r.Status == s {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s (%s), want %v", id, r.Status, r.Message, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func result(text string) Outcome {
	b, _ := json.Marshal(map[string]any{"content": []map[string]any{{"type": "text", "text": text}}})
	return Outcome{Result: b}
}

func TestCompletesAndIsBoundToOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(t, Options{}, runners{"ok": func(context.Context, map[string]json.RawMessage) Outcome { return result("done") }})
		ctx := context.Background()
		r, err := m.Create(ctx, "alice", spec("ok"), nil)
		if err != nil || r.Status != Working {
			t.Fatalf("create: %+v %v", r, err)
		}
		got := await(t, m, "alice", r.ID, Completed)
		if !strings.Contains(string(got.Result), "done") {
			t.Fatalf("result %s", got.Result)
		}
		for _, op := range []func() error{
			func() error { _, err := m.Get(ctx, "bob", r.ID); return err },
			func() error { return m.Cancel(ctx, "bob", r.ID) },
			func() error { return m.Update(ctx, "bob", r.ID, nil) },
		} {
			if err := op(); !errors.Is(err, ErrNotFound) {
				t.Fatalf("another principal reached alice's task: %v", err)
			}
		}
	})
}

func TestCancelStopsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stopped atomic.Bool
		m := newManager(t, Options{Lease: time.Minute}, runners{"block": func(ctx context.Context, _ map[string]json.RawMessage) Outcome {
			<-ctx.Done()
			stopped.Store(true)
			return result("finished anyway")
		}})
		ctx := context.Background()
		r, _ := m.Create(ctx, "", spec("block"), nil)
		if err := m.Cancel(ctx, "", r.ID); err != nil {
			t.Fatal(err)
		}
		await(t, m, "", r.ID, Cancelled)
		for deadline := time.Now().Add(5 * time.Second); m.Running() > 0; {
			if time.Now().After(deadline) {
				t.Fatal("the run did not stop")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if !stopped.Load() {
			t.Fatal("the runner's context was not cancelled")
		}
		if got := await(t, m, "", r.ID, Cancelled); got.Result != nil {
			t.Fatalf("a cancelled task kept the stopped run's result: %s", got.Result)
		}
		if err := m.Cancel(ctx, "", r.ID); err != nil { // idempotent
			t.Fatal(err)
		}
	})
}

func TestInputRoundsAndPartialAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int32
		m := newManager(t, Options{}, runners{"ask": func(_ context.Context, answers map[string]json.RawMessage) Outcome {
			runs.Add(1)
			missing := map[string]json.RawMessage{}
			for _, k := range []string{"a", "b"} {
				if _, ok := answers[k]; !ok {
					missing[k] = json.RawMessage(`{"method":"elicitation/create","params":{}}`)
				}
			}
			if len(missing) > 0 {
				return Outcome{Inputs: missing}
			}
			return result(string(answers["a"]) + string(answers["b"]))
		}})
		ctx := context.Background()
		r, _ := m.Create(ctx, "", spec("ask"), nil)
		got := await(t, m, "", r.ID, InputRequired)
		if len(got.Inputs) != 2 {
			t.Fatalf("inputs %v", got.Inputs)
		}
		if err := m.Update(ctx, "", r.ID, map[string]json.RawMessage{"a": json.RawMessage(`1`), "zzz": json.RawMessage(`9`)}); err != nil {
			t.Fatal(err)
		}
		got = await(t, m, "", r.ID, InputRequired)
		if _, ok := got.Inputs["b"]; !ok || len(got.Inputs) != 1 || runs.Load() != 1 {
			t.Fatalf("after a partial answer: inputs %v, runs %d (want b pending, no new run)", got.Inputs, runs.Load())
		}
		if _, ok := got.Answers["zzz"]; ok {
			t.Fatal("an answer to a request never made was kept")
		}
		m.Update(ctx, "", r.ID, map[string]json.RawMessage{"b": json.RawMessage(`2`)})
		got = await(t, m, "", r.ID, Completed)
		if !strings.Contains(string(got.Result), "12") || runs.Load() != 2 {
			t.Fatalf("result %s after %d runs", got.Result, runs.Load())
		}
	})
}

func TestPerPrincipalCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		m := newManager(t, Options{PerPrincipal: 2}, runners{"block": func(ctx context.Context, _ map[string]json.RawMessage) Outcome {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return result("ok")
		}})
		ctx := context.Background()
		a1, _ := m.Create(ctx, "alice", spec("block"), nil)
		if _, err := m.Create(ctx, "alice", spec("block"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Create(ctx, "alice", spec("block"), nil); !errors.Is(err, ErrTooMany) {
			t.Fatalf("third live task of alice: %v, want ErrTooMany", err)
		}
		if _, err := m.Create(ctx, "bob", spec("block"), nil); err != nil {
			t.Fatalf("bob is not bounded by alice's tasks: %v", err)
		}
		m.Cancel(ctx, "alice", a1.ID)
		if _, err := m.Create(ctx, "alice", spec("block"), nil); err != nil {
			t.Fatalf("after a cancel alice may start another: %v", err)
		}
		close(release)
	})
}

func TestTimeLimitFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(t, Options{Timeout: 50 * time.Millisecond}, runners{"spin": func(ctx context.Context, _ map[string]json.RawMessage) Outcome {
			<-ctx.Done()
			return result("late")
		}})
		r, _ := m.Create(context.Background(), "", spec("spin"), nil)
		got := await(t, m, "", r.ID, Failed)
		if got.Err == nil || !strings.Contains(got.Err.Message, "time limit") || got.Result != nil {
			t.Fatalf("%+v", got)
		}
	})
}

func TestTTLExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := NewMemoryStore(0) // in the bubble, time is fake: Sleep moves it
		m := newManager(t, Options{Store: st, TTL: time.Minute, Timeout: time.Second}, runners{"ok": func(context.Context, map[string]json.RawMessage) Outcome { return result("x") }})
		r, _ := m.Create(context.Background(), "", spec("ok"), nil)
		if r.TTL != time.Minute {
			t.Fatalf("ttl %v", r.TTL)
		}
		await(t, m, "", r.ID, Completed)
		time.Sleep(59 * time.Second)
		if _, err := m.Get(context.Background(), "", r.ID); err != nil {
			t.Fatalf("before its ttl: %v", err)
		}
		time.Sleep(2 * time.Second)
		if _, err := m.Get(context.Background(), "", r.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("after its ttl: %v", err)
		}
		st.Live(context.Background()) // sweeps
		if st.Len() != 0 {
			t.Fatalf("%d records kept after their ttl", st.Len())
		}
	})
}

func TestLapsedLeaseFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := NewMemoryStore(0)
		m := newManager(t, Options{Store: st}, runners{})
		now := time.Now().UTC()
		rec := &Record{ID: "t1", Status: Working, CreatedAt: now, UpdatedAt: now, TTL: time.Hour,
			Holder: "dead-replica", LeaseUntil: now.Add(-time.Second), Run: 1}
		st.Create(context.Background(), rec, 0)
		got, err := m.Get(context.Background(), "", "t1")
		if err != nil || got.Status != Failed || got.Err == nil || !strings.Contains(got.Err.Message, "dead-replica") {
			t.Fatalf("%+v %v", got, err)
		}
	})
}

func TestResultOverSizeCapFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(t, Options{Store: NewMemoryStore(2048)}, runners{"big": func(context.Context, map[string]json.RawMessage) Outcome {
			return result(strings.Repeat("x", 4096))
		}})
		r, _ := m.Create(context.Background(), "", spec("big"), nil)
		got := await(t, m, "", r.ID, Failed)
		if !strings.Contains(got.Err.Message, "size limit") {
			t.Fatalf("%+v", got.Err)
		}
	})
}

// Two managers sharing a store stand for two replicas: a cancel through
// one reaches the run on the other at its next lease renewal. (Every test
// here runs in a synctest bubble: leases, time limits and TTLs pass on a
// fake clock, at once and always in the same order.)
func TestCancelReachesAnotherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := NewMemoryStore(0)
		stopped := make(chan struct{})
		rs := runners{"block": func(ctx context.Context, _ map[string]json.RawMessage) Outcome {
			<-ctx.Done()
			close(stopped)
			return result("x")
		}}
		a := newManager(t, Options{Store: st, Lease: 30 * time.Millisecond, Replica: "a"}, rs)
		b := newManager(t, Options{Store: st, Lease: 30 * time.Millisecond, Replica: "b"}, rs)
		r, _ := a.Create(context.Background(), "", spec("block"), nil)
		if err := b.Cancel(context.Background(), "", r.ID); err != nil {
			t.Fatal(err)
		}
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Fatal("replica a never stopped the cancelled run")
		}
		if got := await(t, b, "", r.ID, Cancelled, Completed, Failed); got.Status != Cancelled {
			t.Fatalf("status %s", got.Status)
		}
	})
}

func TestTimeoutLongerThanTTLRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if _, err := New(Options{Factory: runners{}.factory, TTL: time.Minute, Timeout: time.Hour}); err == nil {
			t.Fatal("a time limit past the ttl was accepted")
		}
	})
}

func TestMemoryStoreRecordCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := NewMemoryStore(0)
		st.MaxRecords = 2
		m := newManager(t, Options{Store: st}, runners{"ok": func(context.Context, map[string]json.RawMessage) Outcome { return result("x") }})
		ctx := context.Background()
		for i := range 2 {
			r, err := m.Create(ctx, "", spec("ok"), nil)
			if err != nil {
				t.Fatal(i, err)
			}
			await(t, m, "", r.ID, Completed)
		}
		// Finished tasks still count until they expire.
		if _, err := m.Create(ctx, "", spec("ok"), nil); !errors.Is(err, ErrFull) {
			t.Fatalf("a third record: %v", err)
		}
	})
}
