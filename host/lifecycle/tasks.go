package lifecycle

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/mcpwasm/mcpwasm/host/tasks/redisstore"
)

// defaultMaxRecord bounds one stored task, its result included;
// defaultMaxTasks the tasks the memory store keeps.
const (
	defaultMaxRecord = 4 << 20
	defaultMaxTasks  = 10000
)

// taskOptions builds the server's task options from [server.tasks] and
// --task-store (which wins), opening the store: in memory, or Redis,
// which must answer now.
func taskOptions(ctx context.Context, c config.Tasks, storeFlag string, logger *slog.Logger) (server.TaskOptions, error) {
	o := server.TaskOptions{Disabled: c.Disabled, Options: tasks.Options{TTL: c.TTL.Duration, Timeout: c.Timeout.Duration,
		PerPrincipal: c.PerPrincipal, Lease: c.Lease.Duration, Logger: logger}}
	if o.Disabled {
		return o, nil
	}
	addr := c.Store
	if storeFlag != "" {
		if err := config.CheckTaskStore(storeFlag); err != nil {
			return o, fmt.Errorf("--task-store %v", err)
		}
		addr = storeFlag
	}
	max := defaultMaxRecord
	if c.MaxRecord.Bytes > 0 {
		max = int(c.MaxRecord.Bytes)
	}
	if addr == "" || addr == "memory" {
		st := tasks.NewMemoryStore(max)
		st.MaxRecords = defaultMaxTasks
		if c.MaxTasks > 0 {
			st.MaxRecords = c.MaxTasks
		}
		o.Store = st
		return o, nil
	}
	st, err := redisstore.Open(ctx, addr, max)
	if err != nil {
		return o, err
	}
	o.Store = st
	logger.Info("tasks are kept in Redis", "store", redisstore.Redact(addr))
	return o, nil
}

// taskStoreAddr is the task store serve opens: --task-store, else
// [server.tasks] store.
func taskStoreAddr(cfg *config.Config, flag string) string {
	if flag != "" {
		return flag
	}
	return cfg.Server.Tasks.Store
}
