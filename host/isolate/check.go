package isolate

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/confine"
)

// PolicyFor is the confinement a worker applies for opts' plugin: what
// validate --confine shows.
func PolicyFor(opts Options) confine.Policy {
	w := New(opts)
	sp := spec{CacheDir: cacheFor(opts.CacheDir, w.digest), NetGrants: opts.Config.Network.Grants}
	for _, g := range opts.Config.Grants {
		sp.Grants = append(sp.Grants, grantSpec{Path: g.Path, ReadOnly: g.ReadOnly})
	}
	return workerPolicy(sp)
}

// DescribePolicy is a policy on one line.
func DescribePolicy(p confine.Policy) string {
	var parts []string
	list := func(what string, xs []string) {
		if len(xs) > 0 {
			parts = append(parts, what+" "+strings.Join(xs, ", "))
		}
	}
	list("read", p.ReadOnly)
	list("read-write", p.ReadWrite)
	if len(p.ConnectTCP) == 0 {
		parts = append(parts, "no TCP")
	} else {
		parts = append(parts, fmt.Sprintf("connect tcp %v", p.ConnectTCP))
	}
	parts = append(parts, "no exec, no ptrace, no signals outside itself")
	return strings.Join(parts, "; ")
}

// Check starts a worker for opts' plugin that confines itself as it would
// to run it, makes validate --confine's attempts (host/confine.Check: a
// file outside its rules, a write into writeDir, exec, ptrace, a TCP port
// and Multipath TCP) and reports them; it loads no plugin code. It must
// run while this process may still exec.
func Check(ctx context.Context, opts Options, writeDir string) (confined string, attempts []confine.Attempt, err error) {
	w := New(opts)
	w.check, w.checkWriteDir = true, writeDir
	w.closed = true // its end is not a crash to restart from
	p, err := w.launch()
	if err != nil {
		return "", nil, err
	}
	defer p.close(0)
	return p.confined, p.attempts, nil
}
