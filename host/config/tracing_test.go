package config

import (
	"testing"
	"time"
)

// [server.tracing] decodes its documented keys, and refuses a bad value or
// an unknown key naming its line.
func TestTracingKeys(t *testing.T) {
	c, err := Parse([]byte(`[server.tracing]
endpoint = "http://collector:4318"
protocol = "http/protobuf"
service_name = "mcp-edge"
sampler = "parentbased_traceidratio"
sampler_arg = 0.25
queue_size = 100
timeout = "2s"
enabled = true
`))
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Server.Tracing
	if tr.Endpoint != "http://collector:4318" || tr.ServiceName != "mcp-edge" || tr.Sampler != "parentbased_traceidratio" ||
		tr.SamplerArg == nil || *tr.SamplerArg != 0.25 || tr.QueueSize != 100 || tr.Timeout.Duration != 2*time.Second ||
		tr.Enabled == nil || !*tr.Enabled || tr.Protocol != "http/protobuf" {
		t.Fatalf("decoded %+v", tr)
	}
	wantRefused(t, map[string]string{
		"[server.tracing]\nendpoint = \"localhost:4318\"\n":           "line 2: [server.tracing] endpoint",
		"[server.tracing]\nendpoint = \"https://u:p@c:4318\"\n":       "line 2: [server.tracing] endpoint",
		"[server]\n[server.tracing]\n\nprotocol = \"http/json\"\n":    "line 4: [server.tracing] protocol: \"http/json\"",
		"[server.tracing]\nsampler = \"sometimes\"\n":                 "line 2: [server.tracing] sampler",
		"[server.tracing]\nsampler_arg = 1.5\n":                       "line 2: [server.tracing] sampler_arg",
		"[server.tracing]\nqueue_size = -1\n":                         "line 2: [server.tracing] queue_size",
		"[server.tracing]\ntimeout = \"soon\"\n":                      "line 2: [server.tracing] timeout",
		"[server.tracing]\nendpoint = \"http://c:4318\"\nheaders = 1": "line 3: unknown key \"server.tracing.headers\"",
	})
}
