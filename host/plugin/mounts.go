package plugin

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mcpwasm/mcpwasm/abi"
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
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return filepath.Clean(real), nil
}
