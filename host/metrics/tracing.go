package metrics

import (
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/prometheus/client_golang/prometheus"
)

// traces reads tracing.Stats once per scrape: spans exported, and spans
// lost because the export queue was full or the collector did not take
// them.
type traces struct {
	stats          func() tracing.Stats
	exported, lost *prometheus.Desc
}

func tracesCollector(stats func() tracing.Stats) prometheus.Collector {
	return &traces{
		stats: stats,
		exported: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "trace_spans_exported_total"),
			"Trace spans the OTLP collector took.", nil, nil),
		lost: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "trace_spans_lost_total"),
			"Trace spans lost, by reason: queue_full (dropped when the export queue was full, so a slow or unreachable collector never holds a call) or export_failed (in a batch the collector refused, or did not answer in time).", []string{"reason"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (t *traces) Describe(ch chan<- *prometheus.Desc) { ch <- t.exported; ch <- t.lost }

// Collect implements prometheus.Collector.
func (t *traces) Collect(ch chan<- prometheus.Metric) {
	s := t.stats()
	ch <- prometheus.MustNewConstMetric(t.exported, prometheus.CounterValue, float64(s.Exported))
	ch <- prometheus.MustNewConstMetric(t.lost, prometheus.CounterValue, float64(s.Dropped), "queue_full")
	ch <- prometheus.MustNewConstMetric(t.lost, prometheus.CounterValue, float64(s.Failed), "export_failed")
}
