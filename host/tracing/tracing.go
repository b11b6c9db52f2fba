// Package tracing exports OpenTelemetry traces of mcpwasm's work: a span
// for every MCP request (following OpenTelemetry's semantic conventions
// for MCP), and below it the plugin call, the guest's network requests,
// its filesystem refusals (as events), and, outside requests, plugin
// loads, reloads, registry pulls and signature checks.
//
// Tracing is off unless configured ([server.tracing] or the standard
// OTEL_* variables, see Config). Off, every hook returns at once after one
// atomic load: no span, no allocation (BenchmarkHooksOff). On, spans go to
// an OTLP collector over HTTP/protobuf through a bounded queue that never
// blocks a call: when it is full, spans are dropped and counted (Stats,
// shown in /metrics).
//
// The package is a leaf: the server, the sandbox and the loaders call its
// hooks, which take plain values, so none of them imports the SDK.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of every span mcpwasm makes.
const ScopeName = "github.com/mcpwasm/mcpwasm"

// Defaults of the knobs Config leaves at zero.
const (
	DefaultServiceName = "mcpwasm"
	DefaultQueueSize   = 2048
	DefaultBatchSize   = 512
	DefaultBatchDelay  = time.Second
	DefaultTimeout     = 10 * time.Second
)

// Config says whether and where spans are exported. Zero fields are taken
// from the standard OTEL_* variables, then from the defaults; a field set
// here wins over its variable.
type Config struct {
	// Enabled forces tracing on (true) or off (false); nil: on when an
	// endpoint is configured here or in OTEL_EXPORTER_OTLP_ENDPOINT or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_TRACES_EXPORTER=otlp.
	// OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off.
	Enabled *bool
	// Endpoint is the collector's base URL ("http://localhost:4318"), as
	// in OTEL_EXPORTER_OTLP_ENDPOINT: over http/protobuf spans are POSTed
	// to its /v1/traces; gRPC uses it as it is.
	Endpoint string
	// Protocol is "http/protobuf" (the default) or "grpc", as in
	// OTEL_EXPORTER_OTLP_PROTOCOL.
	Protocol string
	// ServiceName is service.name (OTEL_SERVICE_NAME; default "mcpwasm").
	ServiceName string
	// Sampler and SamplerArg are as OTEL_TRACES_SAMPLER and
	// OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on).
	Sampler    string
	SamplerArg *float64
	// QueueSize bounds the spans waiting for export (OTEL_BSP_MAX_QUEUE_SIZE,
	// default 2048); past it spans are dropped and counted.
	QueueSize int
	// Timeout bounds one export (OTEL_EXPORTER_OTLP_TIMEOUT, default 10s).
	Timeout time.Duration
	// Version is service.version.
	Version string
	// Logger receives export failures (rate-limited) and the setup line.
	Logger *slog.Logger
	// Env reads a variable; nil means os.Getenv. Tests set it.
	Env func(string) string
	// Redact, if set, rewrites every span's text (name, string attributes,
	// events, status) before export: the server's known secrets are
	// replaced (host/secrets).
	Redact func(string) string
}

// Samplers are the values Sampler and OTEL_TRACES_SAMPLER accept.
var Samplers = []string{"always_on", "always_off", "traceidratio", "parentbased_always_on",
	"parentbased_always_off", "parentbased_traceidratio"}

// Protocols are the values Protocol and OTEL_EXPORTER_OTLP_PROTOCOL accept.
var Protocols = []string{"http/protobuf", "grpc"}

// state is the active exporter; nil when tracing is off.
type state struct {
	endpoint string
	tp       *sdktrace.TracerProvider
	tracer   trace.Tracer
	q        *queue             // nil in a relay (SetupRelay)
	res      *resource.Resource // for spans a worker relays (Import)
	scope    instrumentation.Scope
}

var active atomic.Pointer[state]

// propagator reads and writes W3C traceparent and tracestate.
var propagator = propagation.TraceContext{}

// Enabled reports whether spans are being exported. Every hook checks it
// first; callers may too, to skip building a hook's arguments.
func Enabled() bool { return active.Load() != nil }

func tracer() trace.Tracer {
	if s := active.Load(); s != nil {
		return s.tracer
	}
	return nil
}

// Provider is a running exporter. Shutdown flushes it.
type Provider struct{ s *state }

// Setup starts exporting spans as c says, and returns nil (and no error)
// when tracing is off. Only one Provider is active at a time: a second
// Setup replaces the first (which its Shutdown still flushes).
func Setup(c Config) (*Provider, error) {
	env := c.Env
	if env == nil {
		env = os.Getenv
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	on, err := c.enabled(env)
	if err != nil || !on {
		return nil, err
	}
	protocol := firstOf(c.Protocol, env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), env("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf")
	if protocol != "http/protobuf" && protocol != "grpc" {
		return nil, fmt.Errorf("tracing: protocol %q is not supported (use http/protobuf or grpc)", protocol)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = envDuration(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", envDuration(env, "OTEL_EXPORTER_OTLP_TIMEOUT", DefaultTimeout))
	}
	endpoint, err := c.endpoint(env, protocol)
	if err != nil {
		return nil, err
	}
	exp, err := newExporter(protocol, endpoint, timeout)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	if c.Redact != nil {
		exp = redactingExporter{SpanExporter: exp, redact: c.Redact}
	}
	sampler, err := c.sampler(env)
	if err != nil {
		return nil, err
	}
	name := firstOf(c.ServiceName, env("OTEL_SERVICE_NAME"), DefaultServiceName)
	res, err := resource.New(context.Background(), resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(name), semconv.ServiceVersion(c.Version)))
	if err != nil && res == nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	if c.ServiceName != "" || env("OTEL_SERVICE_NAME") != "" {
		// OTEL_RESOURCE_ATTRIBUTES' service.name must not win over them.
		res, _ = resource.Merge(res, resource.NewSchemaless(semconv.ServiceName(name)))
	}
	size := c.QueueSize
	if size <= 0 {
		size = envInt(env, "OTEL_BSP_MAX_QUEUE_SIZE", DefaultQueueSize)
	}
	q := newQueue(exp, size, min(DefaultBatchSize, size), envDuration(env, "OTEL_BSP_SCHEDULE_DELAY", DefaultBatchDelay), timeout, logger)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithResource(res), sdktrace.WithSpanProcessor(q))
	s := &state{endpoint: endpoint, tp: tp, tracer: tp.Tracer(ScopeName), q: q, res: res, scope: instrumentation.Scope{Name: ScopeName}}
	active.Store(s)
	logger.Info("exporting traces", "endpoint", endpointForLog(endpoint), "protocol", protocol,
		"service", name, "queue", size)
	return &Provider{s: s}, nil
}

// Shutdown stops tracing and exports what is queued, within ctx. Calling
// it on a nil Provider does nothing.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	active.CompareAndSwap(p.s, nil)
	return p.s.tp.Shutdown(ctx)
}

// Endpoint is the URL spans are sent to ("" for a nil Provider), for the
// process's confinement to let it through.
func (p *Provider) Endpoint() string {
	if p == nil {
		return ""
	}
	return p.s.endpoint
}

// ForceFlush exports what is queued, within ctx.
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.s.tp.ForceFlush(ctx)
}

func (c Config) enabled(env func(string) string) (bool, error) {
	if c.Enabled != nil && !*c.Enabled {
		return false, nil
	}
	if strings.EqualFold(strings.TrimSpace(env("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch x := strings.TrimSpace(env("OTEL_TRACES_EXPORTER")); x {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
	default:
		return false, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q is not supported (use otlp or none)", x)
	}
	return (c.Enabled != nil && *c.Enabled) || c.Endpoint != "" ||
		env("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
}

func (c Config) sampler(env func(string) string) (sdktrace.Sampler, error) {
	name := firstOf(c.Sampler, strings.TrimSpace(env("OTEL_TRACES_SAMPLER")), "parentbased_always_on")
	ratio := 1.0
	if c.SamplerArg != nil {
		ratio = *c.SamplerArg
	} else if a := strings.TrimSpace(env("OTEL_TRACES_SAMPLER_ARG")); a != "" {
		v, err := strconv.ParseFloat(a, 64)
		if err != nil {
			return nil, fmt.Errorf("tracing: OTEL_TRACES_SAMPLER_ARG=%q is not a number", a)
		}
		ratio = v
	}
	if ratio < 0 || ratio > 1 {
		return nil, fmt.Errorf("tracing: the sampler's ratio %v is not between 0 and 1", ratio)
	}
	switch name {
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio), nil
	case "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)), nil
	}
	return nil, fmt.Errorf("tracing: sampler %q is not one of %s", name, strings.Join(Samplers, ", "))
}

// endpoint is where spans go: the configured base URL, else
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
// OTEL_EXPORTER_OTLP_ENDPOINT, else the protocol's default. Over
// http/protobuf a base URL gets /v1/traces; gRPC takes it as it is. The
// exporter would read the variables itself, from the process's
// environment; they are read here, through env, so a malformed one is an
// error rather than a silent default.
func (c Config) endpoint(env func(string) string, protocol string) (string, error) {
	base, key := c.Endpoint, "[server.tracing] endpoint"
	if base == "" {
		if u := strings.TrimSpace(env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); u != "" {
			if _, err := checkURL(u); err != nil {
				return "", fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: %w", err)
			}
			return u, nil // used as given, path and all
		}
		base, key = strings.TrimSpace(env("OTEL_EXPORTER_OTLP_ENDPOINT")), "OTEL_EXPORTER_OTLP_ENDPOINT"
	}
	if base == "" {
		base = "http://localhost:4318"
		if protocol == "grpc" {
			base = "http://localhost:4317"
		}
	}
	u, err := checkURL(base)
	if err != nil {
		return "", fmt.Errorf("tracing: %s: %w", key, err)
	}
	if protocol == "http/protobuf" {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

// checkURL accepts an http:// or https:// URL without credentials or query.
func checkURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return nil, errors.New("the endpoint must be an http:// or https:// URL without credentials or query, such as http://localhost:4318")
	}
	return u, nil
}

// newExporter makes the OTLP exporter. Its own retries are off: the queue
// drops what a collector does not take rather than holding it.
func newExporter(protocol, endpoint string, timeout time.Duration) (sdktrace.SpanExporter, error) {
	if protocol == "grpc" {
		return otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpointURL(endpoint),
			otlptracegrpc.WithTimeout(timeout), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	}
	return otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithTimeout(timeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
}

// endpointForLog names where spans go without what a URL may hide in it.
func endpointForLog(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return "(unparsed)"
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func envInt(env func(string) string, key string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(env(key))); err == nil && v > 0 {
		return v
	}
	return def
}

// envDuration reads a duration in milliseconds, as the OTEL_* variables
// give them.
func envDuration(env func(string) string, key string, def time.Duration) time.Duration {
	if v, err := strconv.Atoi(strings.TrimSpace(env(key))); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return def
}
