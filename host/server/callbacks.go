package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callbacks delivers one guest call's notifications to its client session.
type callbacks struct {
	session *mcp.ServerSession
	token   any
	logger  *slog.Logger
	tool    string

	mu       sync.Mutex
	logsLeft int
	dropped  int
}

func (c *callbacks) Progress(ctx context.Context, payload json.RawMessage) error {
	if c.token == nil || c.session == nil {
		return nil // the client asked for no progress
	}
	var p struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("notify_progress: %w", err)
	}
	return c.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.token, Progress: p.Progress, Total: p.Total, Message: p.Message,
	})
}

func (c *callbacks) Log(ctx context.Context, payload json.RawMessage) error {
	if c.session == nil {
		return nil
	}
	var p struct {
		Level  mcp.LoggingLevel `json:"level"`
		Logger string           `json:"logger"`
		Data   any              `json:"data"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("notify_logging_message: %w", err)
	}
	if p.Level == "" {
		p.Level = "info"
	}
	c.mu.Lock()
	if c.logsLeft <= 0 {
		c.dropped++
		if c.dropped == 1 {
			c.logger.Warn("guest log messages over the per-call limit are dropped", "tool", c.tool)
		}
		c.mu.Unlock()
		return nil
	}
	c.logsLeft--
	c.mu.Unlock()
	return c.session.Log(ctx, &mcp.LoggingMessageParams{Level: p.Level, Logger: p.Logger, Data: p.Data})
}
