package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the result of a run: the table's rows, the machine, and the raw
// per-round numbers behind every figure.
type Report struct {
	// Machine describes where and how the run was made.
	Machine Machine `json:"machine"`
	// Rows are the table, in order.
	Rows []Row `json:"rows"`
	// Warnings are what made the table incomplete (skipped targets or
	// figures), also printed loudly on stderr.
	Warnings []string `json:"warnings,omitempty"`
	// Raw holds each measured quantity per round, by name, e.g.
	// "stdio/2025-11-25/wasm/p50_us" → one value per round.
	Raw map[string][]float64 `json:"raw"`
}

// Machine describes the run's machine and sizes.
type Machine struct {
	CPUs        int     `json:"cpus"`
	GOMAXPROCS  int     `json:"gomaxprocs"`
	CPUModel    string  `json:"cpu_model,omitempty"`
	OS          string  `json:"os"`
	Go          string  `json:"go"`
	Node        string  `json:"node,omitempty"`
	Rounds      int     `json:"rounds"`
	Calls       int     `json:"calls_per_round"`
	HTTPSeconds float64 `json:"http_seconds_per_cell"`
	Quick       bool    `json:"quick"`
	Seconds     float64 `json:"seconds"`
}

// Row is one line of the table. Value is in Unit ("x" for a ratio, "us",
// "ms", "calls/s", "MiB"); Text is how the table shows it.
type Row struct {
	Figure  string  `json:"figure"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit,omitempty"`
	Text    string  `json:"text"`
	Target  string  `json:"target,omitempty"`
	Verdict string  `json:"verdict"`
}

func newReport() *Report { return &Report{Raw: map[string][]float64{}} }

func (r *Report) raw(key string, v float64) { r.Raw[key] = append(r.Raw[key], v) }

// info adds a figure without a target.
func (r *Report) info(fig string, v float64, unit string) {
	r.Rows = append(r.Rows, Row{Figure: fig, Value: v, Unit: unit, Text: format(v, unit), Verdict: "info"})
}

// infoText adds a figure shown as text (several values in one row).
func (r *Report) infoText(fig, text string) {
	r.Rows = append(r.Rows, Row{Figure: fig, Text: text, Verdict: "info"})
}

// check adds a figure with a target: v must be ≤ limit (cmp "<=") or
// ≥ limit (cmp ">="). A miss says by what factor.
func (r *Report) check(fig string, v float64, unit, cmp string, limit float64, target string) {
	verdict := "ok"
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		verdict = "n/a"
	case cmp == "<=" && v > limit:
		verdict = fmt.Sprintf("MISS (%.2f× over)", v/limit)
	case cmp == ">=" && v < limit:
		verdict = fmt.Sprintf("MISS (%.2f× under)", limit/v)
	}
	r.Rows = append(r.Rows, Row{Figure: fig, Value: v, Unit: unit, Text: format(v, unit), Target: target, Verdict: verdict})
}

// skip adds a figure that could not be measured.
func (r *Report) skip(fig, target, reason string) {
	r.Rows = append(r.Rows, Row{Figure: fig, Text: "-", Target: target, Verdict: "SKIPPED: " + reason})
}

func format(v float64, unit string) string {
	switch unit {
	case "x":
		return fmt.Sprintf("%.2f×", v)
	case "us":
		if v >= 10000 {
			return fmt.Sprintf("%.1f ms", v/1000)
		}
		return fmt.Sprintf("%.0f µs", v)
	case "ms":
		return fmt.Sprintf("%.0f ms", v)
	case "calls/s":
		return fmt.Sprintf("%.0f/s", v)
	case "MiB":
		return fmt.Sprintf("%.1f MiB", v)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

func (r *Report) print(w io.Writer) {
	m := r.Machine
	node := m.Node
	if node == "" {
		node = "not measured"
	}
	fmt.Fprintf(w, "# mcpwasm-bench: %d CPUs (%s), GOMAXPROCS %d, %s, %s, node %s; %d rounds, medians over rounds; %.0f s\n",
		m.CPUs, m.CPUModel, m.GOMAXPROCS, m.OS, m.Go, node, m.Rounds, m.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tVALUE\tTARGET\tVERDICT")
	// Rows are added as measured; the table is ordered by figure number.
	rows := slices.Clone(r.Rows)
	slices.SortStableFunc(rows, func(a, b Row) int { return strings.Compare(a.Figure[:1], b.Figure[:1]) })
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.Figure, row.Text, dash(row.Target), row.Verdict)
	}
	tw.Flush()
	for _, w2 := range r.Warnings {
		fmt.Fprintf(w, "# WARNING: %s\n", w2)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// percentile returns the q-quantile (0..1) of d by nearest rank, in µs.
func percentile(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return float64(s[max(0, min(i, len(s)-1))]) / float64(time.Microsecond)
}

// median of v, NaN when empty.
func median(v []float64) float64 {
	var s []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios divides a by b element-wise (per round).
func ratios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] / b[i]
	}
	return out
}

func joinValues(unit string, vals ...float64) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		if math.IsNaN(v) {
			parts[i] = "-"
		} else {
			parts[i] = format(v, unit)
		}
	}
	return strings.Join(parts, " / ")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// MarshalJSON writes the report with NaN (not measured) as null.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	out := struct {
		*plain
		Rows []Row                 `json:"rows"`
		Raw  map[string][]*float64 `json:"raw"`
	}{plain: (*plain)(r), Raw: map[string][]*float64{}}
	for _, row := range r.Rows {
		if math.IsNaN(row.Value) || math.IsInf(row.Value, 0) {
			row.Value = 0
		}
		out.Rows = append(out.Rows, row)
	}
	for k, vs := range r.Raw {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				out.Raw[k] = append(out.Raw[k], nil)
			} else {
				out.Raw[k] = append(out.Raw[k], &v)
			}
		}
	}
	return json.Marshal(out)
}
