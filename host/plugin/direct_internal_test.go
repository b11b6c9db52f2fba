package plugin

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// The pinned Extism go-sdk has the fields a direct call reads: an upgrade
// that moves or retypes them fails here, not silently in the call path
// (which would fall back to CallWithContext and its lookups).
func TestDirectCallsAvailable(t *testing.T) {
	if extismPlugin.missing != nil {
		t.Fatalf("direct calls are off: %v", extismPlugin.missing)
	}
}

// extismFieldsOf refuses a kernel of another version, and a struct whose
// fields are missing, renamed or of another type.
func TestExtismFieldsGuard(t *testing.T) {
	type runtime struct{ init func(context.Context) error }
	type good struct {
		extism, mainModule api.Module
		guestRuntime       runtime
	}
	if f := extismFieldsOf(reflect.TypeFor[good](), kernelVersion+"\n"); f.missing != nil {
		t.Fatalf("a matching struct was refused: %v", f.missing)
	}
	type badRuntime struct{ init func() error }
	for what, c := range map[string]struct {
		t       reflect.Type
		version string
		want    string
	}{
		"kernel version": {reflect.TypeFor[good](), "v1.8.0", "kernel"},
		"renamed module": {reflect.TypeFor[struct {
			kernel, mainModule api.Module
			guestRuntime       runtime
		}](), kernelVersion, "no field extism"},
		"retyped module": {reflect.TypeFor[struct {
			extism       any
			mainModule   api.Module
			guestRuntime runtime
		}](), kernelVersion, "extism is a"},
		"retyped init": {reflect.TypeFor[struct {
			extism, mainModule api.Module
			guestRuntime       badRuntime
		}](), kernelVersion, "init is a"},
		"no runtime": {reflect.TypeFor[struct{ extism, mainModule api.Module }](), kernelVersion, "guestRuntime"},
	} {
		f := extismFieldsOf(c.t, c.version)
		if f.missing == nil || !strings.Contains(f.missing.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", what, f.missing, c.want)
		}
	}
}
