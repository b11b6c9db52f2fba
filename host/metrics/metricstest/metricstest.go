// Package metricstest reads a /metrics page the way Prometheus does
// (prometheus/common's text parser), for tests.
package metricstest

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are parsed metric families by name.
type Families map[string]*dto.MetricFamily

// Parse parses the Prometheus text format.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// Scrape GETs url and parses the answer; any status but 200 is an error.
func Scrape(c *http.Client, url string) (Families, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	return Parse(resp.Body)
}

// Value returns the value of the sample of family name whose labels include
// labels: a counter's or gauge's value, a histogram's sample count. The
// second result is false when there is no such sample.
func (f Families) Value(name string, labels map[string]string) (float64, bool) {
	fam, ok := f[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range fam.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// Want is a sample a test expects: the family, labels the sample has (as
// Value matches them) and its value.
type Want struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Check fails t (without stopping it) for every sample of want that is
// missing or has another value.
func (f Families) Check(t testing.TB, want ...Want) {
	t.Helper()
	for _, w := range want {
		if got, ok := f.Value(w.Name, w.Labels); !ok || got != w.Value {
			t.Errorf("%s%v = %v (present %v), want %v", w.Name, w.Labels, got, ok, w.Value)
		}
	}
}
