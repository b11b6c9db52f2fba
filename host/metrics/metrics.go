// Package metrics exposes mcpwasm's Prometheus metrics: calls by plugin,
// tool and outcome, their durations, the sandbox's load (guest memory
// against the budget, calls in flight and waiting), plugin load failures,
// denials, policy decisions, open sessions and, with tracing on, trace
// spans exported and lost.
//
// Data flows one way into it. Calls and denials arrive as audit events
// (Observe is an audit.Log observer, so whatever records a denial — the
// authentication, the rate limiter, the sandbox's guards — is counted
// without knowing about metrics); load failures are reported by the
// loader; the gauges are read from the sandbox and the server at each
// scrape. Everything is registered on a private registry, never on
// client_golang's global one.
package metrics

import (
	"net/http"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every mcpwasm metric.
const Namespace = "mcpwasm"

// DurationBuckets are the call duration histogram's buckets, in seconds:
// from a warm sub-millisecond call to the longest time limits.
var DurationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// Options says where the gauges are read from, at each scrape. A nil
// source leaves its gauges out.
type Options struct {
	// Sandbox reports the sandbox's load (plugin.Runtime.Stats).
	Sandbox func() plugin.Stats
	// Sessions reports the MCP sessions open now.
	Sessions func() int
	// Plugins reports the plugins loaded and served now.
	Plugins func() int
	// Traces reports the trace spans exported and lost (tracing.ReadStats),
	// when tracing is on.
	Traces func() tracing.Stats
}

// Metrics holds mcpwasm's collectors on a private registry.
type Metrics struct {
	reg          *prometheus.Registry
	calls        *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	loadFailures *prometheus.CounterVec
	denials      *prometheus.CounterVec
	decisions    *prometheus.CounterVec
	trust        *prometheus.CounterVec
}

// New creates the metrics and registers them, with the Go runtime's and
// the process's standard collectors, on a registry of their own.
func New(o Options) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: counterVec("calls_total",
			"Guest calls (tools/call, resources/read, prompts/get, completion/complete) by plugin, method, tool (the tool, prompt, resource URI or, for a read through a template, the template) and outcome: ok, tool_error (the tool answered isError itself), an ABI error category, or error (a protocol error outside the sandbox).",
			"plugin", "method", "tool", "outcome"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "call_duration_seconds",
			Help:    "Duration of guest calls, from the request reaching the handler to its result, waits for a slot, the memory budget or the CPU included.",
			Buckets: DurationBuckets,
		}, []string{"plugin", "method", "tool"}),
		loadFailures: counterVec("plugin_load_failures_total",
			"Plugins that failed to load (refused, failed to compile, or not ready within the load deadline), by plugin.",
			"plugin"),
		denials: counterVec("denials_total",
			"Requests and guest operations refused, by kind: auth, rate_limit, fs (a filesystem escape), net.",
			"kind"),
		decisions: counterVec("policy_decisions_total",
			"Decisions of the Cedar policies ([server.policy]) on calls, reads, gets and completions, by decision: allow, deny.",
			"decision"),
		trust: counterVec("trust_events_total",
			"What a plugin tells the model, by event: hold (a changed or new declaration not served), approval (declarations recorded), refusal (hidden text, a confusable name), redaction (secrets replaced in a result), block (a result refused for a credential), strip (hidden characters removed from a result).",
			"event"),
	}
	// Present at 0 from the start:
	present(m.denials, audit.DenyAuth, audit.DenyRateLimit, audit.DenyFS, audit.DenyNet)
	present(m.decisions, audit.DecisionAllow, audit.DecisionDeny)
	present(m.trust, "hold", "approval", "refusal", "redaction", "block", "strip")
	m.reg.MustRegister(m.calls, m.duration, m.loadFailures, m.denials, m.decisions, m.trust,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.Sandbox != nil {
		m.reg.MustRegister(sandboxCollector(o.Sandbox))
	}
	if o.Traces != nil {
		m.reg.MustRegister(tracesCollector(o.Traces))
	}
	if o.Sessions != nil {
		m.reg.MustRegister(countGauge("sessions_open",
			"MCP sessions open now (stdio: 1; stateless HTTP: the requests being served).", o.Sessions))
	}
	if o.Plugins != nil {
		m.reg.MustRegister(countGauge("plugins_loaded", "Plugins loaded and served now.", o.Plugins))
	}
	return m
}

// counterVec is the counter Namespace_name, with help, by labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)
}

// present makes the series of c for each of values (c has one label), so
// that they are scraped at 0 before anything is counted.
func present(c *prometheus.CounterVec, values ...string) {
	for _, v := range values {
		c.WithLabelValues(v)
	}
}

// countGauge is the gauge Namespace_name, with help, read from count at
// each scrape.
func countGauge(name, help string, count func() int) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help},
		func() float64 { return float64(count()) })
}

// Observe counts an audit event: a call by plugin, method, tool and
// outcome, with its duration; a denial by kind; a policy decision by
// decision. Register it with
// audit.Log.Observe.
func (m *Metrics) Observe(e audit.Event) {
	switch e.Kind {
	case audit.KindCall:
		if e.Plugin == "" {
			return // nothing served it: its names came from the client alone
		}
		name := e.Tool
		if t, ok := e.Attrs["template"].(string); ok {
			name = t // a read through a template: the URI is the client's
		}
		m.calls.WithLabelValues(e.Plugin, e.Method, name, e.Outcome).Inc()
		m.duration.WithLabelValues(e.Plugin, e.Method, name).Observe(e.DurationMs / 1000)
	case audit.KindDenial:
		m.denials.WithLabelValues(e.Denial).Inc()
	case audit.KindPolicy:
		if e.Decision == audit.DecisionAllow || e.Decision == audit.DecisionDeny {
			m.decisions.WithLabelValues(e.Decision).Inc()
		}
	case audit.KindTrust:
		n := 1
		if c, ok := e.Attrs["count"].(int); ok && c > 0 {
			n = c
		}
		m.trust.WithLabelValues(e.Outcome).Add(float64(n))
	}
}

// LoadFailed counts a plugin that did not load.
func (m *Metrics) LoadFailed(plugin string) {
	m.loadFailures.WithLabelValues(plugin).Inc()
}

// Handler serves the metrics in Prometheus's text format (or OpenMetrics,
// when the scraper asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Registry returns the private registry, for tests and for embedding.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
