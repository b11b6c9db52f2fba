package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/mcpwasm/mcpwasm/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// pollOnly hides the store's pub/sub, leaving the lease renewal to carry
// cancels.
type pollOnly struct{ tasks.Store }

// BenchmarkCancelReach measures the time from tasks/cancel through one
// replica to the guest's stop on another, with pub/sub and with polling
// alone (lease 3s: a renewal every second).
//
//	go test -run '^$' -bench CancelReach -benchtime 20x ./host/tasks/redisstore
func BenchmarkCancelReach(b *testing.B) {
	addr := redistest.Start(b)
	for _, mode := range []string{"pubsub", "polling"} {
		b.Run(mode, func(b *testing.B) {
			stopped := make(chan time.Time, 1)
			run := func(ctx context.Context, _ map[string]json.RawMessage) tasks.Outcome {
				<-ctx.Done()
				stopped <- time.Now()
				return tasks.Outcome{Result: ok}
			}
			mk := func(name string) *tasks.Manager {
				var st tasks.Store = open(b, addr, 1<<20)
				if mode == "polling" {
					st = pollOnly{st}
				}
				m, err := tasks.New(tasks.Options{Store: st, Replica: name, Lease: 3 * time.Second, PerPrincipal: 1 << 20,
					Factory: func(json.RawMessage) (tasks.Runner, error) { return run, nil }})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { m.Close() })
				return m
			}
			a, c := mk("a"), mk("b")
			ctx := context.Background()
			warm, _ := a.Create(ctx, "", json.RawMessage(`{}`), nil) // starts a's loops
			a.Cancel(ctx, "", warm.ID)
			<-stopped
			var total time.Duration
			b.ResetTimer()
			for range b.N {
				r, err := a.Create(ctx, "", json.RawMessage(`{}`), nil)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				if err := c.Cancel(ctx, "", r.ID); err != nil {
					b.Fatal(err)
				}
				total += (<-stopped).Sub(t0)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-stop")
		})
	}
}

// BenchmarkStore measures, for each store, creating a task (the record
// written durably, its run started), reading it (tasks/get's store work),
// and the memory one finished task with a 200-byte result takes.
//
//	go test -run '^$' -bench 'Store' -benchtime 2000x ./host/tasks/redisstore
func BenchmarkStore(b *testing.B) {
	addr := redistest.Start(b)
	result := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("r", 170) + `"}]}`)
	done := func(context.Context, map[string]json.RawMessage) tasks.Outcome { return tasks.Outcome{Result: result} }
	for _, kind := range []string{"memory", "redis"} {
		newManager := func(b *testing.B) *tasks.Manager {
			var st tasks.Store = tasks.NewMemoryStore(1 << 20)
			if kind == "redis" {
				rs := open(b, addr, 1<<20)
				rs.Flush(context.Background())
				st = rs
			}
			m, err := tasks.New(tasks.Options{Store: st, PerPrincipal: 1 << 20,
				Factory: func(json.RawMessage) (tasks.Runner, error) { return done, nil }})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { m.Close() })
			return m
		}
		spec := json.RawMessage(`{"tool":"slow_compute","args":{"seconds":0},"who":""}`)
		b.Run(kind+"/create", func(b *testing.B) {
			m := newManager(b)
			for range b.N {
				if _, err := m.Create(context.Background(), "", spec, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/get", func(b *testing.B) {
			m := newManager(b)
			r, _ := m.Create(context.Background(), "", spec, nil)
			for deadline := time.Now().Add(5 * time.Second); ; {
				if got, _ := m.Get(context.Background(), "", r.ID); got.Status == tasks.Completed || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Millisecond)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := m.Get(context.Background(), "", r.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/memory", func(b *testing.B) {
			m := newManager(b)
			rdb := redis.NewClient(mustParse(b, addr))
			defer rdb.Close()
			const n = 2000
			settle := func() {
				for deadline := time.Now().Add(30 * time.Second); m.Running() > 0 && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
			}
			for range 200 { // warm up: connection pools, maps
				m.Create(context.Background(), "", spec, nil)
			}
			settle()
			heap0, redis0 := heapInUse(), redisUsed(b, rdb)
			for range n {
				if _, err := m.Create(context.Background(), "", spec, nil); err != nil {
					b.Fatal(err)
				}
			}
			settle()
			heap1, redis1 := heapInUse(), redisUsed(b, rdb)
			b.ReportMetric(float64(heap1-heap0)/n, "go-heap-B/task")
			if kind == "redis" {
				b.ReportMetric(float64(redis1-redis0)/n, "redis-B/task")
			}
			for range b.N { // the figure is per task, not per op
			}
		})
	}
}

func mustParse(b *testing.B, addr string) *redis.Options {
	o, err := redis.ParseURL(addr)
	if err != nil {
		b.Fatal(err)
	}
	return o
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

func redisUsed(b *testing.B, rdb *redis.Client) int64 {
	info, err := rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal(fmt.Errorf("no used_memory in INFO"))
	return 0
}
