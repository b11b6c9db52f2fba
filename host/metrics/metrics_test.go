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
	fams.Check(t, []metricstest.Want{
		{Name: "mcpwasm_calls_total", Labels: map[string]string{"plugin": "p", "tool": "p_echo", "outcome": "ok", "method": "tools/call"}, Value: 2},
		{Name: "mcpwasm_calls_total", Labels: map[string]string{"plugin": "p", "tool": "p_spin", "outcome": "timeout"}, Value: 1},
		{Name: "mcpwasm_call_duration_seconds", Labels: map[string]string{"plugin": "p", "tool": "p_echo"}, Value: 2},
		{Name: "mcpwasm_plugin_load_failures_total", Labels: map[string]string{"plugin": "broken"}, Value: 1},
		{Name: "mcpwasm_denials_total", Labels: map[string]string{"kind": "rate_limit"}, Value: 1},
		{Name: "mcpwasm_denials_total", Labels: map[string]string{"kind": "auth"}, Value: 0},
		{Name: "mcpwasm_policy_decisions_total", Labels: map[string]string{"decision": "allow"}, Value: 2},
		{Name: "mcpwasm_policy_decisions_total", Labels: map[string]string{"decision": "deny"}, Value: 1},
		{Name: "mcpwasm_trust_events_total", Labels: map[string]string{"event": "hold"}, Value: 1},
		{Name: "mcpwasm_trust_events_total", Labels: map[string]string{"event": "redaction"}, Value: 3},
		{Name: "mcpwasm_trust_events_total", Labels: map[string]string{"event": "approval"}, Value: 0},
		{Name: "mcpwasm_guest_memory_bytes", Value: 3 << 20},
		{Name: "mcpwasm_guest_memory_budget_bytes", Value: 1 << 30},
		{Name: "mcpwasm_calls_in_flight", Value: 4},
		{Name: "mcpwasm_calls_computing", Value: 1},
		{Name: "mcpwasm_calls_waiting", Labels: map[string]string{"for": "slot"}, Value: 1},
		{Name: "mcpwasm_calls_waiting", Labels: map[string]string{"for": "budget"}, Value: 2},
		{Name: "mcpwasm_calls_waiting", Labels: map[string]string{"for": "cpu"}, Value: 3},
		{Name: "mcpwasm_sessions_open", Value: 7},
		{Name: "mcpwasm_plugins_loaded", Value: 2},
		{Name: "mcpwasm_trace_spans_exported_total", Value: 40},
		{Name: "mcpwasm_trace_spans_lost_total", Labels: map[string]string{"reason": "queue_full"}, Value: 5},
		{Name: "mcpwasm_trace_spans_lost_total", Labels: map[string]string{"reason": "export_failed"}, Value: 6},
	}...)
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
