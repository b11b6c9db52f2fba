// Package trust decides which of a plugin's declarations are served: it
// fingerprints each one (host/fingerprint), refuses those with hidden text
// (host/hiddentext), and serves only those whose fingerprint the lock file
// approved ("pin"), recording a plugin's first declarations on first use
// ("tofu"). A changed or new declaration is held: not listed, not
// callable, logged once, until `mcpwasm trust` approves it.
//
// The Vetter runs where the registry reads a plugin's lists (at load, on a
// reload, on a list the plugin refreshes), never per request.
package trust

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/fingerprint"
)

// Key names one declaration of a plugin: its kind and the name clients see
// (a tool's or prompt's exposed name, a resource's URI, a template's URI
// template).
type Key struct {
	Kind fingerprint.Kind
	Name string
}

// String reads as `tool "kit_echo"`.
func (k Key) String() string { return fmt.Sprintf("%s %q", k.Kind, k.Name) }

// Approved is what the lock file approves for one plugin.
type Approved map[Key]fingerprint.Print

// lineWord starts every line this package writes (source.DeclWord).
const lineWord = "decl"

// FormatLine is one lock-file line:
//
//	decl PLUGIN KIND NAME sha256:HEX FIELD=SUM,FIELD=SUM…
//
// PLUGIN, NAME and the field names are URL path-escaped, so no line
// holds a space or a line break whatever a plugin declares.
func FormatLine(plugin string, k Key, p fingerprint.Print) string {
	fields := make([]string, 0, len(p.Fields))
	for f, sum := range p.Fields {
		fields = append(fields, url.PathEscape(f)+"="+sum)
	}
	sort.Strings(fields)
	return fmt.Sprintf("%s %s %s %s %s %s", lineWord, url.PathEscape(plugin), k.Kind, url.PathEscape(k.Name), p.Sum, strings.Join(fields, ","))
}

// ParseLines reads the lock file's decl lines into approvals per plugin.
// A malformed line is an error naming it (the file's own reader already
// checked the rest).
func ParseLines(lines []string) (map[string]Approved, error) {
	out := map[string]Approved{}
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 5 || len(f) > 6 || f[0] != lineWord {
			return nil, fmt.Errorf("lock file: want %q, got %q", "decl PLUGIN KIND NAME SHA256 FIELDS", clip(line))
		}
		plugin, err1 := url.PathUnescape(f[1])
		name, err2 := url.PathUnescape(f[3])
		kind := fingerprint.Kind(f[2])
		if err1 != nil || err2 != nil || !fingerprint.ValidKind(kind) || !validSum(f[4]) {
			return nil, fmt.Errorf("lock file: malformed declaration line %q", clip(line))
		}
		p := fingerprint.Print{Sum: f[4], Fields: map[string]string{}}
		if len(f) == 6 {
			for _, kv := range strings.Split(f[5], ",") {
				k, v, ok := strings.Cut(kv, "=")
				fk, err := url.PathUnescape(k)
				if !ok || err != nil {
					return nil, fmt.Errorf("lock file: malformed field %q in %q", clip(kv), clip(line))
				}
				p.Fields[fk] = v
			}
		}
		if out[plugin] == nil {
			out[plugin] = Approved{}
		}
		out[plugin][Key{Kind: kind, Name: name}] = p
	}
	return out, nil
}

func validSum(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
