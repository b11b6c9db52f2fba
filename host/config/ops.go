package config

// Audit is the [server.audit] table: the audit log, one JSON line per
// guest call and per denial (see package audit).
type Audit struct {
	// File is where the lines go: a path (relative to the config file's
	// folder; appended to, created 0600) or "-" for stderr. Empty: no
	// audit log.
	File string `toml:"file"`
	// Arguments records each call's arguments too. Off by default: they
	// may hold what a user typed.
	Arguments bool `toml:"arguments"`
}
