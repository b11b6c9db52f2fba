//go:build !wasip1

package guest

import (
	"errors"
	"testing"
)

// TestReferenceChecksRunLast: a completion naming a broken template must
// not hide the template's own error, whatever order the packages' init
// functions registered their checks in.
func TestReferenceChecksRunLast(t *testing.T) {
	saved, savedRef := checks, referenceChecks
	t.Cleanup(func() { checks, referenceChecks = saved, savedRef })
	checks, referenceChecks = nil, nil
	AddReferenceCheck(func() error { return errors.New("the completion names no template") })
	AddCheck(func() error { return nil })
	AddCheck(func() error { return errors.New("the template does not parse") })
	if err := Check(); err == nil || err.Error() != "the template does not parse" {
		t.Errorf("Check() = %v", err)
	}
	checks = nil
	if err := Check(); err == nil || err.Error() != "the completion names no template" {
		t.Errorf("Check() = %v", err)
	}
}

func TestGuard(t *testing.T) {
	ran := false
	if err := Guard("the tool \"x\"", func() { ran = true }); err != nil || !ran {
		t.Errorf("Guard = %v, ran %v", err, ran)
	}
	err := Guard("the tool \"x\"", func() { panic(errors.New("boom")) })
	if err == nil || err.Error() != `internal error: the tool "x" panicked: boom` {
		t.Errorf("Guard after a panic = %v", err)
	}
}

// TestGuardMessage: while the handler runs, the error_set message is the
// one the host reports if the module traps. Standard Go recovers, so it
// sets none; TinyGo sets Guard's message. Either way none is left once the
// handler has returned.
func TestGuardMessage(t *testing.T) {
	BeginTest()
	var during string
	Guard(`the tool "x"`, func() { during = Test.Err })
	want := ""
	if !canRecover {
		want = `the tool "x" panicked or ran out of memory (TinyGo cannot recover; the panic message is in the server's debug log, guest stdout)`
	}
	if during != want {
		t.Errorf("message while the handler runs = %q, want %q", during, want)
	}
	if Test.Err != "" {
		t.Errorf("message left after the handler returned = %q", Test.Err)
	}
}
