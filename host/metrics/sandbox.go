package metrics

import (
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/prometheus/client_golang/prometheus"
)

// sandbox reads plugin.Stats once per scrape and reports its gauges.
type sandbox struct {
	stats                     func() plugin.Stats
	memInUse, memBudget       *prometheus.Desc
	inFlight, computing, wait *prometheus.Desc
}

func sandboxCollector(stats func() plugin.Stats) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
	}
	return &sandbox{
		stats:     stats,
		memInUse:  d("guest_memory_bytes", "Guest memory charged to the memory budget now: the linear memories of live instances and what calls about to start reserved."),
		memBudget: d("guest_memory_budget_bytes", "The memory budget of all running instances together (--memory-budget; 0: unbounded)."),
		inFlight:  d("calls_in_flight", "Guest calls in the sandbox now, waiting or running."),
		computing: d("calls_computing", "Guest calls holding a CPU slot now."),
		wait:      d("calls_waiting", "Guest calls waiting now, by what for: slot (a concurrency slot of the plugin or the server), budget (room in the memory budget), cpu (a CPU slot).", "for"),
	}
}

// Describe implements prometheus.Collector.
func (s *sandbox) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.memInUse, s.memBudget, s.inFlight, s.computing, s.wait} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *sandbox) Collect(ch chan<- prometheus.Metric) {
	st := s.stats()
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	g(s.memInUse, float64(st.MemoryInUse))
	g(s.memBudget, float64(st.MemoryBudget))
	g(s.inFlight, float64(st.InFlight))
	g(s.computing, float64(st.Computing))
	g(s.wait, float64(st.WaitingSlot), "slot")
	g(s.wait, float64(st.WaitingBudget), "budget")
	g(s.wait, float64(st.WaitingCPU), "cpu")
}
