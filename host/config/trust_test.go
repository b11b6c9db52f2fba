package config

import (
	"strings"
	"testing"
)

func TestTrustSettings(t *testing.T) {
	c, err := Parse([]byte("[defaults]\ntrust = \"pin\"\nsecrets = \"log\"\n\n[[plugin]]\npath = \"a.wasm\"\nhidden_text = \"warn\"\nresults_hidden_text = \"strip\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Plugins[0].Trust.Resolve(c.Defaults.Trust)
	if got != (Trust{Trust: "pin", HiddenText: "warn", ResultsHiddenText: "strip", Secrets: "log"}) {
		t.Fatalf("resolved %+v", got)
	}
	if d := (Trust{}).Resolve(Trust{}); d != (Trust{Trust: "tofu", HiddenText: "refuse", ResultsHiddenText: "keep", Secrets: "redact"}) {
		t.Fatalf("defaults %+v", d)
	}
	for _, bad := range []struct{ cfg, want string }{
		{"[defaults]\ntrust = \"always\"\n", `line 2: [defaults]: trust = "always"`},
		{"[[plugin]]\npath = \"a.wasm\"\n\n[[plugin]]\npath = \"b.wasm\"\nsecrets = \"drop\"\n", `line 6: [[plugin]] #2: secrets = "drop"`},
		{"[[plugin]]\npath = \"a.wasm\"\nhidden_text = \"strip\"\n", `hidden_text = "strip": want one of ["refuse" "warn"]`},
		{"[[plugin]]\npath = \"a.wasm\"\nresults_hidden_text = \"refuse\"\n", `results_hidden_text`},
	} {
		_, err := Parse([]byte(bad.cfg))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want %q", bad.cfg, err, bad.want)
		}
	}
}
