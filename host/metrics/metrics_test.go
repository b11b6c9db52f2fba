package metrics_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/metrics"
	"github.com/mcpwasm/mcpwasm/host/metrics/metricstest"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/prometheus/client_golang/prometheus"
)

// Calls and denials recorded on an audit log, load failures and the
// gauges' sources all reach the scraped page, on the private registry.
func TestMetricsPage(t *testing.T) {
	m := metrics.New(metrics.Options{
		Sandbox: func() plugin.Stats {
			return plugin.Stats{MemoryInUse: 3 << 20, MemoryBudget: 1 << 30, InFlight: 4, Computing: 1,
				WaitingSlot: 1, WaitingBudget: 2, WaitingCPU: 3}
		},
		Sessions: func() int { return 7 },
		Plugins:  func() int { return 2 },
		Traces:   func() tracing.Stats { return tracing.Stats{Exported: 40, Dropped: 5, Failed: 6} },
	})
	log := audit.New(nil, false)
	log.Observe(m.Observe)
	log.Record(audit.Event{Kind: audit.KindCall, Plugin: "p", Method: "tools/call", Tool: "p_echo", Outcome: "ok", DurationMs: 2})
	log.Record(audit.Event{Kind: audit.KindCall, Plugin: "p", Method: "tools/call", Tool: "p_echo", Outcome: "ok", DurationMs: 3})
	log.Record(audit.Event{Kind: audit.KindCall, Plugin: "p", Method: "tools/call", Tool: "p_spin", Outcome: "timeout", DurationMs: 300})
	log.Record(audit.Event{Kind: audit.KindCall, Method: "tools/call", Tool: "nobody_serves_this", Outcome: "error"})
	log.Record(audit.Event{Kind: audit.KindDenial, Denial: audit.DenyRateLimit})
	log.Record(audit.Event{Kind: audit.KindPolicy, Decision: audit.DecisionDeny, Policies: []string{"p1"}})
	log.Record(audit.Event{Kind: audit.KindPolicy, Decision: audit.DecisionAllow})
	log.Record(audit.Event{Kind: audit.KindPolicy, Decision: audit.DecisionAllow})
	log.Record(audit.Event{Kind: audit.KindTrust, Outcome: "hold", Plugin: "p", Tool: "p_echo"})
	log.Record(audit.Event{Kind: audit.KindTrust, Outcome: "redaction", Plugin: "p", Tool: "p_echo", Attrs: map[string]any{"count": 3}})
	m.LoadFailed("broken")

	hs := httptest.NewServer(m.Handler())
	defer hs.Close()
	fams, err := metricstest.Scrape(hs.Client(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mcpwasm_calls_total", map[string]string{"plugin": "p", "tool": "p_echo", "outcome": "ok", "method": "tools/call"}, 2},
		{"mcpwasm_calls_total", map[string]string{"plugin": "p", "tool": "p_spin", "outcome": "timeout"}, 1},
		{"mcpwasm_call_duration_seconds", map[string]string{"plugin": "p", "tool": "p_echo"}, 2},
		{"mcpwasm_plugin_load_failures_total", map[string]string{"plugin": "broken"}, 1},
		{"mcpwasm_denials_total", map[string]string{"kind": "rate_limit"}, 1},
		{"mcpwasm_denials_total", map[string]string{"kind": "auth"}, 0},
		{"mcpwasm_policy_decisions_total", map[string]string{"decision": "allow"}, 2},
		{"mcpwasm_policy_decisions_total", map[string]string{"decision": "deny"}, 1},
		{"mcpwasm_trust_events_total", map[string]string{"event": "hold"}, 1},
		{"mcpwasm_trust_events_total", map[string]string{"event": "redaction"}, 3},
		{"mcpwasm_trust_events_total", map[string]string{"event": "approval"}, 0},
		{"mcpwasm_guest_memory_bytes", nil, 3 << 20},
		{"mcpwasm_guest_memory_budget_bytes", nil, 1 << 30},
		{"mcpwasm_calls_in_flight", nil, 4},
		{"mcpwasm_calls_computing", nil, 1},
		{"mcpwasm_calls_waiting", map[string]string{"for": "slot"}, 1},
		{"mcpwasm_calls_waiting", map[string]string{"for": "budget"}, 2},
		{"mcpwasm_calls_waiting", map[string]string{"for": "cpu"}, 3},
		{"mcpwasm_sessions_open", nil, 7},
		{"mcpwasm_plugins_loaded", nil, 2},
		{"mcpwasm_trace_spans_exported_total", nil, 40},
		{"mcpwasm_trace_spans_lost_total", map[string]string{"reason": "queue_full"}, 5},
		{"mcpwasm_trace_spans_lost_total", map[string]string{"reason": "export_failed"}, 6},
	} {
		if got, ok := fams.Value(c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// A call nothing served is not a series: its names came from the client.
	if _, ok := fams.Value("mcpwasm_calls_total", map[string]string{"tool": "nobody_serves_this"}); ok {
		t.Error("an unserved tool name became a label value")
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Error("the Go runtime collector is missing")
	}
	// The private registry: nothing lands on client_golang's global one.
	global, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range global {
		if strings.HasPrefix(f.GetName(), metrics.Namespace+"_") {
			t.Errorf("%s is on the global registry", f.GetName())
		}
	}
}
