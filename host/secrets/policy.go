package secrets

import "fmt"

// Mode is what a plugin's `secrets` setting does with credentials Detect
// finds in its results.
type Mode string

// The modes of the `secrets` setting.
const (
	// Redact replaces each credential with "[REDACTED:KIND]" (the default).
	Redact Mode = "redact"
	// Block answers the call with an error instead of the result.
	Block Mode = "block"
	// Log passes the result unchanged, and logs and counts what was found.
	Log Mode = "log"
	// Off does not look.
	Off Mode = "off"
)

// ParseMode checks a `secrets` value ("" is the default, Redact).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return Redact, nil
	case Redact, Block, Log, Off:
		return Mode(s), nil
	}
	return "", fmt.Errorf("%q: want \"redact\", \"block\", \"log\" or \"off\"", s)
}

// Policy is what is done to one plugin's output: known secrets are always
// replaced; credential formats as Mode says.
type Policy struct {
	Known *Redactor
	Mode  Mode
}

// Report says what Scan found in one string.
type Report struct {
	// Known is how many known secrets were replaced.
	Known int
	// Found are the credentials found by format (after the known secrets
	// were replaced), whatever the mode did with them.
	Found []Match
}

// Empty reports whether nothing was found.
func (r Report) Empty() bool { return r.Known == 0 && len(r.Found) == 0 }

// Add sums another report into r (Found keeps kinds only: its offsets are
// those of another string).
func (r *Report) Add(o Report) {
	r.Known += o.Known
	r.Found = append(r.Found, o.Found...)
}

// Scan applies the policy to s: the string to send, and what was found.
// Under Block and Log the credentials found are left in place: the caller
// refuses the result (Block) or logs the report (Log).
func (p Policy) Scan(s string) (string, Report) {
	var rep Report
	s, rep.Known = p.Known.Redact(s)
	switch p.Mode {
	case Off:
	case Block, Log:
		rep.Found = Detect(s)
	default:
		s, rep.Found = RedactFormats(s)
	}
	return s, rep
}
