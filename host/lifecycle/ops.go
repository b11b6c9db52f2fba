package lifecycle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/metrics"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/server/httpserve"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// OpsOptions are serve's operator flags.
type OpsOptions struct {
	// Admin is the address of the operator endpoints (--admin), or "".
	Admin string
	// AuditLog is the audit log file (--audit-log), "-" for stderr, or "".
	AuditLog string
}

// ops is what serve runs for its operator: the audit log, the metrics and
// where the health and metrics endpoints are served.
type ops struct {
	admin     string // the admin listener's address, or ""
	audit     *audit.Log
	file      *audit.File // the audit file, if one was opened
	auditPath string      // its path, or "" or "-"
	metrics   *metrics.Metrics
	traces    *tracing.Provider // nil when tracing is off
}

// newOps opens the audit log named by --audit-log or [server.audit] file
// (relative to the config file's folder). The Log exists even without a
// file: the metrics count denials through it.
func newOps(f OpsOptions, cfg *config.Config, stderr io.Writer) (*ops, error) {
	o := &ops{admin: f.Admin}
	if o.admin == "" {
		o.admin = cfg.Server.Admin
	}
	path, flagged := f.AuditLog, f.AuditLog != ""
	if !flagged {
		path = cfg.Server.Audit.File
	}
	var w io.Writer
	switch path {
	case "":
	case "-":
		w = stderr
	default:
		file, err := audit.OpenFile(path)
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		w, o.file, o.auditPath = file, file, path
	}
	o.audit = audit.New(w, cfg.Server.Audit.Arguments)
	return o, nil
}

// start creates the metrics, reading the sandbox and the server at each
// scrape and counting the audit log's events. Call it before serving.
func (o *ops) start(srv *server.Server, rt *plugin.Runtime) {
	mo := metrics.Options{Sandbox: rt.Stats, Sessions: srv.Sessions, Plugins: srv.Plugins}
	if o.traces != nil {
		mo.Traces = tracing.ReadStats
	}
	o.metrics = metrics.New(mo)
	o.audit.Observe(o.metrics.Observe)
}

// routes returns the operator's endpoints to serve beside /mcp: all of
// them when there is no admin listener, none otherwise.
func (o *ops) routes(srv *server.Server) map[string]http.Handler {
	if o.admin != "" {
		return nil
	}
	h := httpserve.OpsHandler(srv, o.metrics.Handler())
	routes := map[string]http.Handler{}
	for _, p := range httpserve.OpsPaths {
		routes[p] = h
	}
	return routes
}

// serveAdmin serves the operator's endpoints on the admin listener, if
// there is one, until ctx ends.
func (o *ops) serveAdmin(ctx context.Context, srv *server.Server, logger *slog.Logger) error {
	if o.admin == "" {
		return nil
	}
	ln, err := httpserve.ListenAdmin(o.admin)
	if err != nil {
		return err
	}
	go func() {
		if err := httpserve.ServeAdmin(ctx, srv, ln, httpserve.OpsHandler(srv, o.metrics.Handler())); err != nil {
			logger.Error("operator endpoints stopped", "err", err)
		}
	}()
	return nil
}

// startTracing starts exporting traces if [server.tracing] or the OTEL_*
// variables say so.
func (o *ops) startTracing(cfg *config.Config, version string, logger *slog.Logger, redact func(string) string) error {
	t := cfg.Server.Tracing
	var err error
	o.traces, err = tracing.Setup(tracing.Config{Enabled: t.Enabled, Endpoint: t.Endpoint, Protocol: t.Protocol,
		ServiceName: t.ServiceName, Sampler: t.Sampler, SamplerArg: t.SamplerArg, QueueSize: t.QueueSize,
		Timeout: t.Timeout.Duration, Version: version, Logger: logger, Redact: redact})
	return err
}

// traceFlushTimeout bounds the export of the last spans at exit.
const traceFlushTimeout = 5 * time.Second

// close exports the spans still queued and closes the audit file.
func (o *ops) close() {
	if o.traces != nil {
		ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
		o.traces.Shutdown(ctx)
		cancel()
	}
	if o.file != nil {
		o.file.Close()
	}
}

// reopen opens the audit log file again, by name, after a rotation moved
// it away (SIGHUP): lines written from now on go to the new file. On
// failure the file open until now stays in use, and the log says why.
func (o *ops) reopen(logger *slog.Logger) {
	if o.file == nil {
		return
	}
	if err := o.file.Reopen(); err != nil {
		logger.Error("audit log not reopened: lines still go to the file open before", "file", o.file.Path(), "err", err)
		return
	}
	logger.Info("audit log reopened", "file", o.file.Path())
}

// lost counts a plugin that did not load in the metrics.
func (o *ops) lost(name string) {
	if o.metrics != nil {
		o.metrics.LoadFailed(name)
	}
}
