package registry

import (
	"context"
	"strings"
	"testing"
)

// TestReplaceAppend: Append never takes a URI from a plugin already served
// (the collision names both and nothing is added); Replace puts a new
// version in the old one's place, reported as the old removed and the new
// added, and the new version owns what the old one did.
func TestReplaceAppend(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	reg := New()
	old := loadFixture(t, rt, "dup_fast", "d0")
	if _, err := reg.Add(ctx, old, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	rival := loadFixture(t, rt, "dup_fast", "d1")
	e, err := Read(ctx, rival, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Append(e, AddOptions{}); err == nil || !strings.Contains(err.Error(), `"d1"`) || !strings.Contains(err.Error(), `"d0"`) {
		t.Fatalf("Append of a colliding plugin: %v, want an error naming d0 and d1", err)
	}
	if got := reg.Plugins(); len(got) != 1 || got[0] != old {
		t.Fatalf("plugins after a refused Append = %v", got)
	}

	next := loadFixture(t, rt, "dup_fast", "d0")
	e, err = Read(ctx, next, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := reg.Replace(old, e, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Added) != 1 || ch.Added[0].Plugin != next || len(ch.Removed) != 1 || ch.Removed[0].Plugin != old {
		t.Fatalf("Replace changes: %+v", ch)
	}
	if owner, _ := reg.ResourceOwner("dup://shared"); owner != next {
		t.Fatalf("dup://shared owned by %v after Replace, want the new version", owner)
	}
	if got := reg.Plugins(); len(got) != 1 || got[0] != next {
		t.Fatalf("plugins after Replace = %v", got)
	}
	if _, err := reg.Replace(old, e, AddOptions{}); err == nil {
		t.Fatal("Replace of a plugin no longer in the registry succeeded")
	}

	echo := loadFixture(t, rt, "echo", "e")
	e, err = Read(ctx, echo, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err = reg.Append(e, AddOptions{})
	if err != nil || len(ch.Added) != 1 || ch.Added[0].Plugin != echo {
		t.Fatalf("Append of a plugin that collides with nothing: %+v, %v", ch, err)
	}
}

// TestMayExpose: the prefix rule the server's wait for a contested name
// uses is the one names are exposed by: a prefixed plugin can only take
// names under its prefix, an unprefixed one any name.
func TestMayExpose(t *testing.T) {
	pre, un := AddOptions{}, AddOptions{Unprefixed: true}
	for _, c := range []struct {
		plugin string
		opts   AddOptions
		name   string
		want   bool
	}{
		{"text", pre, Exposed("text", "count", pre), true},
		{"text", pre, "other_count", false},
		{"text", pre, "textcount", false},
		{"text", un, Exposed("text", "count", un), true},
		{"text", un, "other_count", true},
	} {
		if got := MayExpose(c.plugin, c.opts, c.name); got != c.want {
			t.Errorf("MayExpose(%q, unprefixed=%v, %q) = %v, want %v", c.plugin, c.opts.Unprefixed, c.name, got, c.want)
		}
	}
	if Exposed("text", "count", pre) != "text_count" || Exposed("text", "count", un) != "count" {
		t.Errorf("Exposed: %q, %q", Exposed("text", "count", pre), Exposed("text", "count", un))
	}
}
