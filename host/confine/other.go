//go:build !linux

package confine

import "errors"

var errNotLinux = errors.New("confinement needs Linux (Landlock and seccomp)")

func landlockABI() int                         { return 0 }
func seccompAvailable() bool                   { return false }
func setNoNewPrivs() error                     { return errNotLinux }
func restrictLandlock(p Policy, abi int) error { return errNotLinux }
func loadSeccomp(p Policy) error               { return errNotLinux }
func (p Policy) withRuntime() Policy           { return p }

// RuntimePaths is empty: nothing is confined off Linux.
func RuntimePaths() []string { return nil }

// ChildMain returns at once: the confinement check is Linux only.
func ChildMain() {}

// Check is the confinement check; Linux only.
type Check struct{ Report Report }

// Attempt is the outcome of one try.
type Attempt struct {
	What    string
	Refused bool
	Detail  string
}

// PrepareCheck fails: the confinement check is Linux only.
func PrepareCheck(p Policy, writeDir string) (*Check, error) { return nil, errNotLinux }

// Run makes no attempt.
func (c *Check) Run() []Attempt { return nil }

// Close does nothing.
func (c *Check) Close() {}
