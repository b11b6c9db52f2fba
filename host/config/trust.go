package config

import "fmt"

// Trust holds the settings of what a plugin tells the model, in
// [defaults] and in each [[plugin]] (docs/security.md, "What a plugin
// tells the model"). An empty value takes [defaults]'s, then the default.
type Trust struct {
	// Trust is "tofu" (the default: the first declarations served are
	// recorded in mcpwasm.lock, a change is held until approved), "pin"
	// (only what mcpwasm.lock holds is served) or "off".
	Trust string `toml:"trust"`
	// HiddenText is "refuse" (the default: a declaration with hidden
	// characters, or an exposed name confusable with another, is not
	// served) or "warn" (served, logged).
	HiddenText string `toml:"hidden_text"`
	// ResultsHiddenText is "strip" (remove hidden characters from text
	// results, counted) or "" / "keep" (the default: results as written).
	ResultsHiddenText string `toml:"results_hidden_text"`
	// Secrets is what is done with credentials found by format in a
	// result: "redact" (the default), "block", "log" or "off".
	Secrets string `toml:"secrets"`
}

// The values each trust setting takes; the first is the default.
var trustValues = map[string][]string{
	"trust":               {"tofu", "pin", "off"},
	"hidden_text":         {"refuse", "warn"},
	"results_hidden_text": {"keep", "strip"},
	"secrets":             {"redact", "block", "log", "off"},
}

// Resolve returns t with every empty setting taken from d, then from the
// defaults.
func (t Trust) Resolve(d Trust) Trust {
	pick := func(v, dv, key string) string {
		if v != "" {
			return v
		}
		if dv != "" {
			return dv
		}
		return trustValues[key][0]
	}
	return Trust{Trust: pick(t.Trust, d.Trust, "trust"), HiddenText: pick(t.HiddenText, d.HiddenText, "hidden_text"),
		ResultsHiddenText: pick(t.ResultsHiddenText, d.ResultsHiddenText, "results_hidden_text"), Secrets: pick(t.Secrets, d.Secrets, "secrets")}
}

// check refuses a value a setting does not take, naming the key and its
// line.
func (t Trust) check(data []byte, where, table string, index int) error {
	for key, v := range map[string]string{"trust": t.Trust, "hidden_text": t.HiddenText,
		"results_hidden_text": t.ResultsHiddenText, "secrets": t.Secrets} {
		if v == "" {
			continue
		}
		ok := false
		for _, w := range trustValues[key] {
			ok = ok || v == w
		}
		if !ok {
			line := ""
			if n := valueLine(data, table, index, key); n > 0 {
				line = fmt.Sprintf("line %d: ", n)
			}
			return fmt.Errorf("%s%s: %s = %q: want one of %q", line, where, key, v, trustValues[key])
		}
	}
	return nil
}

// TrustValid reports whether v is a value of the trust setting key (for
// the --trust flag).
func TrustValid(key, v string) bool {
	for _, w := range trustValues[key] {
		if v == w {
			return true
		}
	}
	return false
}
