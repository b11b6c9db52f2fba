package plugin

import (
	"context"
	"io"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/sandboxfs"
	"github.com/tetratelabs/wazero"
)

type mountsKey struct{}

// WithMounts returns a context whose guest calls see exactly these folders,
// each at its own host path. The caller has already checked them against
// the plugin's grants.
func WithMounts(ctx context.Context, m []abi.Mount) context.Context {
	return context.WithValue(ctx, mountsKey{}, m)
}

func mountsFrom(ctx context.Context) []abi.Mount {
	m, _ := ctx.Value(mountsKey{}).([]abi.Mount)
	return m
}

// Canonical returns the absolute, symlink-free, clean form of a folder path,
// the form grants and roots are compared in.
func Canonical(path string) (string, error) { return sandboxfs.Canonical(path) }

// mountFS builds the guest's filesystem for one call: os.Root-backed mounts
// that symlinks, hard links, renames and ".." cannot leave.
func mountFS(mounts []abi.Mount) (wazero.FSConfig, io.Closer, error) {
	ms := make([]sandboxfs.Mount, len(mounts))
	for i, m := range mounts {
		ms[i] = sandboxfs.Mount{HostPath: m.Path, ReadOnly: m.ReadOnly}
	}
	return sandboxfs.FSConfig(ms)
}
