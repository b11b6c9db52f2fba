package config

import (
	"fmt"
	"os"
	"strings"
)

// Isolation settings: where a plugin's code runs.
const (
	// IsolationProcess runs the plugin in a confined worker process of
	// its own (host/isolate).
	IsolationProcess = "process"
	// IsolationInProcess runs it in the server's process, behind wazero
	// and the server's own confinement.
	IsolationInProcess = "in-process"
)

// IsolationEnv, when set to "process" or "in-process", replaces the
// default for plugins that choose nothing (the test suites run with it).
const IsolationEnv = "MCPWASM_ISOLATION"

// IsolationFor is where a plugin from source runs: setting (its
// [[plugin]] isolation) if given, else [defaults] isolation, else
// $MCPWASM_ISOLATION, else "process" for third-party code (oci:// and
// https:// sources) and "in-process" for local files.
func (c *Config) IsolationFor(setting, source string) string {
	if setting != "" {
		return setting
	}
	if c != nil && c.Defaults.Isolation != "" {
		return c.Defaults.Isolation
	}
	if env := os.Getenv(IsolationEnv); env == IsolationProcess || env == IsolationInProcess {
		return env
	}
	if strings.HasPrefix(source, "oci://") || strings.HasPrefix(source, "https://") {
		return IsolationProcess
	}
	return IsolationInProcess
}

// checkIsolation refuses an isolation value other than the two.
func checkIsolation(where, v string) error {
	if v == "" || v == IsolationProcess || v == IsolationInProcess {
		return nil
	}
	return fmt.Errorf("%s: isolation is %q; want %q or %q", where, clipKey(v), IsolationProcess, IsolationInProcess)
}
