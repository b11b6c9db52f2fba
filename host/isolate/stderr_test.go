package isolate

import (
	"strings"
	"testing"
)

func TestLineWriterPrefixesAndClips(t *testing.T) {
	var b strings.Builder
	l := newLineWriter(&b, "worker x: ")
	l.Write([]byte("one\ntime=forged level=INFO msg=\"plugin loaded\"\npart"))
	l.Write([]byte("ial\n" + strings.Repeat("y", maxLogLine+10) + "\n"))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %q", len(lines), b.String())
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "worker x: ") {
			t.Errorf("unprefixed line %q", line)
		}
	}
	if lines[2] != "worker x: partial" || len(lines[3]) > len("worker x: ")+maxLogLine+len("…") {
		t.Errorf("lines %q / %d bytes", lines[2], len(lines[3]))
	}
}
