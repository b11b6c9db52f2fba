package server_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/mcpwasm/mcpwasm/host/tasks/redisstore"
	"github.com/mcpwasm/mcpwasm/internal/redistest"
)

// BenchmarkTaskHTTP measures, through the real server over stateless HTTP
// with raw 2026-07-28 requests, a tools/call answered with a task
// (greet, made a task tool by the operator) and a tasks/get of a
// completed task, with the memory store and with Redis; and the same
// greet as a plain call, for scale.
//
//	go test -run '^$' -bench TaskHTTP -benchtime 500x ./host/server
func BenchmarkTaskHTTP(b *testing.B) {
	addr := redistest.Start(b)
	for _, kind := range []string{"memory", "redis"} {
		opts := server.Options{Tasks: server.TaskOptions{Options: tasks.Options{PerPrincipal: 1 << 20}}}
		if kind == "redis" {
			st, err := redisstore.Open(context.Background(), addr, 1<<20)
			if err != nil {
				b.Fatal(err)
			}
			opts.Tasks.Store = st
		}
		url, _ := taskServerModes(b, opts, httpserve.Options{Access: httpserve.AccessOptions{Rate: -1}}, map[string]string{"greet": "optional"})
		c := rpc{t: b, url: url, caps: tasksExt}
		b.Run(kind+"/create", func(b *testing.B) {
			for range b.N {
				if r := c.tool("greet", map[string]any{"name": "b"}); r.Result["taskId"] == nil {
					b.Fatalf("%+v", r)
				}
			}
		})
		if kind == "memory" {
			plain := rpc{t: b, url: url, caps: `{}`}
			b.Run("plain-call", func(b *testing.B) { // the same call without a task, for scale
				for range b.N {
					if r := plain.tool("greet", map[string]any{"name": "b"}); r.Result["content"] == nil {
						b.Fatalf("%+v", r)
					}
				}
			})
		}
		id, _ := c.tool("greet", map[string]any{"name": "b"}).Result["taskId"].(string)
		c.await(id, "completed")
		b.Run(kind+"/get", func(b *testing.B) {
			for range b.N {
				if r := c.task("tasks/get", id, nil); r.Result["status"] != "completed" {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}
