package plugin_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// loadIn loads a fixture into an existing runtime, failing the test on error.
func loadIn(t testing.TB, rt *plugin.Runtime, name string, cfg plugin.Config) *plugin.Plugin {
	t.Helper()
	path := fixture.Path(t, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Source, cfg.Wasm = name, path, data
	p, err := rt.Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func load(t *testing.T, name string, cfg plugin.Config) (*plugin.Plugin, error) {
	t.Helper()
	path := fixture.Path(t, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Source, cfg.Wasm = name, path, data
	p, err := rt.Load(context.Background(), cfg)
	t.Cleanup(func() {
		if p != nil {
			p.Close(context.Background())
		}
		rt.Close(context.Background())
	})
	return p, err
}

func TestBusyWhenNoSlotFreesInTime(t *testing.T) {
	p, err := load(t, "spin", plugin.Config{Concurrency: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		close(started)
		p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	}()
	<-started
	// Wait until the spinning call holds the only slot: a second call with
	// a short deadline then cannot start.
	var cerr *plugin.Error
	for i := 0; i < 100; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, cerr = p.Invoke(ctx, abi.ExportCallTool, []byte(`{}`))
		cancel()
		if cerr != nil && cerr.Category == abi.ErrBusy {
			return
		}
	}
	t.Fatalf("want busy while the only slot is taken, got %+v", cerr)
}

func TestLoadRefusals(t *testing.T) {
	for _, c := range []struct{ fixture, want string }{
		{"bad_import", `"env"."abort"`},
		{"imported_memory", "must define their own memory"},
		{"unknown_hostfn", `"launch_missiles"`},
		{"abi_v2", "ABI v2"},
	} {
		_, err := load(t, c.fixture, plugin.Config{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.fixture) {
			t.Errorf("%s: err = %v; want it to name the plugin and %q", c.fixture, err, c.want)
		}
	}
	if _, err := load(t, "echo", plugin.Config{SHA256: strings.Repeat("0", 64)}); err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Errorf("sha256 pin: %v", err)
	}
}

func TestInvokeClassifiesExitZero(t *testing.T) {
	p, err := load(t, "exit0", plugin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	if cerr == nil || cerr.Category != abi.ErrExit {
		t.Fatalf("proc_exit(0) must not look like success: out %q, err %+v", out, cerr)
	}
}
