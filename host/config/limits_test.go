package config

import (
	"strings"
	"testing"
)

// Every size and duration out of range is refused with the key, the table
// and the line, never silently changed (8GiB used to panic at start, 1KiB
// became 2MiB, 0 meant the default).
func TestLimitsOutOfRange(t *testing.T) {
	plugins := "[[plugin]]\nname = \"a\"\npath = \"a.wasm\"\n\n[[plugin]]\nname = \"b\"\npath = \"b.wasm\"\n"
	for _, c := range []struct{ in, want string }{
		{"[defaults]\nmemory = \"8GiB\"\n", `line 2: [defaults]: memory: 8GiB is out of range`},
		{"[defaults]\nmemory = \"1KiB\"\n", `line 2: [defaults]: memory: 1KiB is out of range`},
		{"[defaults]\nmemory = \"0\"\n", `memory: 0 bytes is out of range`},
		{"[defaults]\ntimeout = \"0s\"\n", `line 2: [defaults]: timeout: 0s is out of range`},
		{"[defaults]\ntimeout = \"-1s\"\n", `timeout: -1s is out of range`},
		{"[defaults]\ntimeout = \"48h\"\n", `timeout: 48h0m0s is out of range`},
		{"[defaults]\nmax_output = \"0\"\n", `max_output: 0 bytes is out of range`},
		{"[defaults]\nconcurrency = -1\n", `concurrency: -1 is out of range`},
		{"[defaults]\nconcurrency = 100000\n", `concurrency: 100000 is out of range`},
		// The second plugin's line, not the first's.
		{plugins + "memory = \"8GiB\"\n", `line 8: [[plugin]] "b": memory: 8GiB is out of range`},
		{plugins + "timeout = \"soon\"\n", `line 8: [[plugin]] "b": timeout: invalid duration "soon"`},
		{"[[plugin]]\npath = \"a.wasm\"\nmemory = \"lots\"\n[[plugin]]\npath = \"b.wasm\"\nmemory = \"1MiB\"\n",
			`line 3: [[plugin]] #1: memory: invalid size "lots"`},
	} {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", c.in, err, c.want)
		}
	}
	for _, ok := range []string{
		"[defaults]\nmemory = \"2MiB\"\ntimeout = \"1ms\"\nmax_output = \"1\"\nconcurrency = 1\n",
		"[defaults]\nmemory = \"4GiB\"\ntimeout = \"24h\"\nmax_output = \"4GiB\"\nconcurrency = 1024\n",
	} {
		if _, err := Parse([]byte(ok)); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
}

func TestCheckBudget(t *testing.T) {
	for n, ok := range map[uint64]bool{0: true, 1 << 20: false, 2 << 20: false, 8 << 20: true, 1 << 40: true} {
		if err := CheckBudget(n); (err == nil) != ok {
			t.Errorf("CheckBudget(%d) = %v", n, err)
		}
	}
}
