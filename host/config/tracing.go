package config

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Tracing is the [server.tracing] table: OpenTelemetry traces exported
// over OTLP (see package tracing). Keys left out are taken from the
// standard OTEL_* variables; tracing is off unless an endpoint is set
// here or in OTEL_EXPORTER_OTLP_ENDPOINT (or enabled = true).
type Tracing struct {
	// Enabled forces tracing on or off; unset: on when an endpoint is
	// configured.
	Enabled *bool `toml:"enabled"`
	// Endpoint is the collector's base URL, e.g. "http://localhost:4318";
	// spans go to its /v1/traces.
	Endpoint string `toml:"endpoint"`
	// Protocol is "http/protobuf" (the default) or "grpc".
	Protocol string `toml:"protocol"`
	// ServiceName is the service.name of the spans (default "mcpwasm").
	ServiceName string `toml:"service_name"`
	// Sampler is one of TracingSamplers; SamplerArg is the ratio of the
	// traceidratio samplers.
	Sampler    string   `toml:"sampler"`
	SamplerArg *float64 `toml:"sampler_arg"`
	// QueueSize bounds the spans waiting for export (default 2048).
	QueueSize int `toml:"queue_size"`
	// Timeout bounds one export (default 10s).
	Timeout Duration `toml:"timeout"`
}

// TracingSamplers are the samplers [server.tracing] sampler accepts (as
// OTEL_TRACES_SAMPLER does).
var TracingSamplers = []string{"always_on", "always_off", "traceidratio", "parentbased_always_on",
	"parentbased_always_off", "parentbased_traceidratio"}

// checkTracing checks [server.tracing], naming the line of a bad key.
func (t Tracing) check(data []byte) error {
	bad := func(key, format string, args ...any) error {
		where := "[server.tracing]"
		if line := keyLine(data, toml.Key{"server", "tracing", key}); line > 0 {
			where = fmt.Sprintf("line %d: %s", line, where)
		}
		return fmt.Errorf("%s %s: %s", where, key, fmt.Sprintf(format, args...))
	}
	if t.Endpoint != "" {
		u, err := url.Parse(t.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
			return bad("endpoint", "%q is not an http:// or https:// URL without credentials or query, such as \"http://localhost:4318\"", clipKey(t.Endpoint))
		}
	}
	if t.Protocol != "" && t.Protocol != "http/protobuf" && t.Protocol != "grpc" {
		return bad("protocol", "%q is not supported (use \"http/protobuf\" or \"grpc\")", clipKey(t.Protocol))
	}
	if t.Sampler != "" && !slices.Contains(TracingSamplers, t.Sampler) {
		return bad("sampler", "%q is not one of %s", clipKey(t.Sampler), strings.Join(TracingSamplers, ", "))
	}
	if a := t.SamplerArg; a != nil && (math.IsNaN(*a) || *a < 0 || *a > 1) {
		return bad("sampler_arg", "%v is not a ratio between 0 and 1", *a)
	}
	if t.QueueSize < 0 {
		return bad("queue_size", "%d is negative", t.QueueSize)
	}
	if t.Timeout.err != nil {
		return bad("timeout", "%v", t.Timeout.err)
	}
	return nil
}
