// Package clip shortens untrusted text before it goes into a log, an error
// message, a span or a header: a client's id, a plugin's message or a URL
// can be megabytes long and need not be valid UTF-8.
//
// Every cut is made on a rune boundary, so a clipped string that was valid
// UTF-8 stays valid. String marks a cut with "…"; Prefix does not, for a
// value that must stay within n bytes (a field a session keeps).
package clip

import "unicode/utf8"

// Log is the length most log attributes are clipped to.
const Log = 200

// Audit is the length of the tool name, prompt name or URI an audit event
// records.
const Audit = 1024

// Mark ends a string String cut.
const Mark = "…"

// String returns s if it is at most n bytes, else its first n bytes or
// fewer (cut on a rune boundary) followed by Mark.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + Mark
}

// Bytes is String for a byte slice.
func Bytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return String(string(b[:n+min(utf8.UTFMax, len(b)-n)]), n)
}

// Prefix returns s cut to at most n bytes, on a rune boundary, unmarked.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
