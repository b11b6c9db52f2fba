package sandboxfs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// The probe guest (testdata/fsprobe) is built and compiled once per test
// binary.
var (
	probeRT  wazero.Runtime
	probeMod wazero.CompiledModule
)

func TestMain(m *testing.M) {
	code, err := withProbe(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxfs tests:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func withProbe(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "fsprobe")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, "fsprobe.wasm")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goTool = p
	}
	cmd := exec.Command(goTool, "build", "-buildvcs=false", "-o", wasm, "./testdata/fsprobe")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("building the probe guest: %v\n%s", err, out)
	}
	bin, err := os.ReadFile(wasm)
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	probeRT = wazero.NewRuntime(ctx)
	defer probeRT.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, probeRT)
	if probeMod, err = probeRT.CompileModule(ctx, bin); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// runProbe runs the probe guest once with cfg and ops and returns one result
// per op ("ok", "ok <payload>" or "err <ERRNO>") plus everything the guest
// wrote to stdout and stderr.
func runProbe(t *testing.T, cfg wazero.FSConfig, ops []string) ([]string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	mc := wazero.NewModuleConfig().WithName("").WithFSConfig(cfg).
		WithArgs(append([]string{"fsprobe"}, ops...)...).
		WithStdout(&stdout).WithStderr(&stderr)
	mod, err := probeRT.InstantiateModule(context.Background(), probeMod, mc)
	if mod != nil {
		_ = mod.Close(context.Background())
	}
	var exit *sys.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 0) {
		t.Fatalf("probe: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	results := make([]string, len(ops))
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		i, res, ok := strings.Cut(line, "\t")
		n, err := strconv.Atoi(i)
		if !ok || err != nil || n < 0 || n >= len(ops) {
			t.Fatalf("probe: unexpected output line %q", line)
		}
		results[n] = res
	}
	return results, stdout.String() + stderr.String()
}

// fixture is a fresh directory tree:
//
//	base/outside/secret.txt      the marker
//	base/outside/leak-<marker>   (so a listing of outside shows the marker)
//	base/outside/victim.txt
//	base/mnt/hello.txt, sub/inner.txt
//	base/mnt/rel-link    -> ../outside/secret.txt
//	base/mnt/abs-link    -> base/outside/secret.txt
//	base/mnt/dir-link    -> ../outside
//	base/mnt/absdir-link -> base/outside
//	base/mnt/in-link     -> hello.txt
//	base/mnt/in-dirlink  -> sub
//	base/other/o.txt     a second mount
type fixture struct {
	base, mnt, other, outside, marker string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	fx := &fixture{
		base:    base,
		mnt:     filepath.Join(base, "mnt"),
		other:   filepath.Join(base, "other"),
		outside: filepath.Join(base, "outside"),
		marker:  "SANDBOXFS-MARKER-" + hex.EncodeToString(b),
	}
	files := map[string]string{
		"outside/secret.txt":        fx.marker,
		"outside/leak-" + fx.marker: "",
		"outside/victim.txt":        "victim",
		"mnt/hello.txt":             "hello",
		"mnt/sub/inner.txt":         "inner",
		"other/o.txt":               "other",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	for link, target := range map[string]string{
		"rel-link":    "../outside/secret.txt",
		"abs-link":    filepath.Join(fx.outside, "secret.txt"),
		"dir-link":    "../outside",
		"absdir-link": fx.outside,
		"in-link":     "hello.txt",
		"in-dirlink":  "sub",
	} {
		must(t, os.Symlink(target, filepath.Join(fx.mnt, link)))
	}
	return fx
}

// expand replaces $M (the mount), $O (the other mount) and $OUT (the
// outside folder) in op templates.
func (fx *fixture) expand(ops []string) []string {
	r := strings.NewReplacer("$OUT", fx.outside, "$M", fx.mnt, "$O", fx.other) // $OUT before $O
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = r.Replace(op)
	}
	return out
}

// snapshot describes everything under dir: type, size, mtime and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// backend builds the FSConfig under test: the mount (read-only or not) plus
// the other mount, read-write.
type backend struct {
	name string
	cfg  func(t *testing.T, fx *fixture, ro bool) wazero.FSConfig
}

var (
	ours = backend{"sandboxfs", func(t *testing.T, fx *fixture, ro bool) wazero.FSConfig {
		cfg, closer, err := FSConfig([]Mount{{HostPath: fx.mnt, ReadOnly: ro}, {HostPath: fx.other}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { must(t, closer.Close()) })
		return cfg
	}}
	naive = backend{"wazero DirMount", func(t *testing.T, fx *fixture, ro bool) wazero.FSConfig {
		cfg := wazero.NewFSConfig()
		if ro {
			cfg = cfg.WithReadOnlyDirMount(fx.mnt, fx.mnt)
		} else {
			cfg = cfg.WithDirMount(fx.mnt, fx.mnt)
		}
		return cfg.WithDirMount(fx.other, fx.other)
	}}
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// code shortens a probe result to "ok" or the errno name.
func code(res string) string {
	if res == "ok" || strings.HasPrefix(res, "ok ") {
		return "ok"
	}
	return strings.TrimPrefix(res, "err ")
}
