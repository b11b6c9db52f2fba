package plugin_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// sharedCache is one compile cache folder for this run of the package's
// tests, made fresh by TestMain and removed after. Tests whose subject is
// not a cold build (networking, mounts, fresh instances, the differential
// comparison) load through it, so each standard-Go module (3.3–3.8 MB, ten
// to twenty seconds to compile under -race) is compiled once per run rather
// than once per test. Tests of cold builds, the build queue and the
// interpreter tier keep their own folders or none.
var sharedCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwasm-plugin-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sharedCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// warmRuntime is a runtime over the run's shared compile cache (see
// sharedCache), with opts otherwise as given.
func warmRuntime(t *testing.T, opts plugin.RuntimeOptions) *plugin.Runtime {
	t.Helper()
	opts.CacheDir = sharedCache
	return runtimeWith(t, opts)
}

// runtimeWith is a runtime made with opts, closed when the test ends.
func runtimeWith(t *testing.T, opts plugin.RuntimeOptions) *plugin.Runtime {
	t.Helper()
	rt, err := plugin.NewRuntime(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}
