package mounts

import (
	"reflect"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// Narrow: a root inside a grant narrows to the root, a grant inside a root
// stays the grant, a root outside every grant is reported, no roots (nil)
// means the grants, and a read-only mount inside a read-write one is
// dropped (the outer already gives it).
func TestNarrow(t *testing.T) {
	grants := []plugin.Grant{{Path: "/srv/data", ReadOnly: true}, {Path: "/srv/work"}}
	for _, c := range []struct {
		name    string
		roots   []string
		want    []abi.Mount
		outside []string
	}{
		{"no narrowing", nil, []abi.Mount{{Path: "/srv/data", ReadOnly: true}, {Path: "/srv/work"}}, nil},
		{"root inside a grant", []string{"/srv/data/a"}, []abi.Mount{{Path: "/srv/data/a", ReadOnly: true}}, nil},
		{"grant inside a root", []string{"/srv"}, []abi.Mount{{Path: "/srv/data", ReadOnly: true}, {Path: "/srv/work"}}, nil},
		{"root outside", []string{"/home/u", "/srv/work/x"}, []abi.Mount{{Path: "/srv/work/x"}}, []string{"/home/u"}},
		{"no roots left", []string{}, []abi.Mount{}, nil},
	} {
		got, outside := Narrow(grants, c.roots)
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(outside, c.outside) {
			t.Errorf("%s: %v (outside %v), want %v (outside %v)", c.name, got, outside, c.want, c.outside)
		}
	}
	nested := []plugin.Grant{{Path: "/srv"}, {Path: "/srv/data", ReadOnly: true}}
	if got, _ := Narrow(nested, nil); !reflect.DeepEqual(got, []abi.Mount{{Path: "/srv"}}) {
		t.Errorf("a read-only grant inside a read-write one: %v", got)
	}
}
