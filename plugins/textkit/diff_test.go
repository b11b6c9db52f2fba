//go:build !wasip1

package main

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDiffAgainstGNU checks random diffs two ways: patch(1) turns a into b
// with our diff, and it changes exactly as many lines as GNU diff -u (both
// are shortest edit scripts; ties may be broken differently).
func TestDiffAgainstGNU(t *testing.T) {
	for _, tool := range []string{"diff", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	r := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	gen := func() string {
		var sb strings.Builder
		n := r.Intn(15)
		for i := 0; i < n; i++ {
			sb.WriteByte(byte('a' + r.Intn(4)))
			if i < n-1 || r.Intn(3) > 0 {
				sb.WriteByte('\n')
			}
		}
		return sb.String()
	}
	file := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for iter := 0; iter < 400; iter++ {
		a, b, ctx := gen(), gen(), r.Intn(4)
		al, bl := splitLines(a), splitLines(b)
		ops, _ := diffLines(al, bl, false)
		u := unified(ops, al, bl, "a", "b", ctx)
		gnu, _ := exec.Command("diff", "-U", strconv.Itoa(ctx), file("a", a), file("b", b)).Output()
		if changed(string(gnu)) != changed(u) {
			t.Fatalf("not a shortest edit script: a=%q b=%q\nours:\n%s\nGNU:\n%s", a, b, u, gnu)
		}
		if (u == "") != (a == b) {
			t.Fatalf("a=%q b=%q: diff %q", a, b, u)
		}
		if u == "" {
			continue
		}
		c := file("c", a)
		out, err := exec.Command("patch", "-s", c, file("p", u)).CombinedOutput()
		got, _ := os.ReadFile(c)
		if err != nil || string(got) != b {
			t.Fatalf("patch: %v %s\na=%q b=%q context=%d\n%s\ngot %q", err, out, a, b, ctx, u, got)
		}
	}
}

func changed(u string) int {
	n := 0
	for _, l := range strings.Split(u, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--- ") {
			n++
		}
	}
	return n
}
