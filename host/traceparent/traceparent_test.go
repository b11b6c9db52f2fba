package traceparent_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/traceparent"
)

const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{good, true},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later", true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", false}, // version 00 is exactly 55
		{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false}, // uppercase
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g", false},
		{"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-\n", false},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + strings.Repeat("a", 300), false},
		{"", false},
	} {
		if got := traceparent.Valid(tc.s); got != tc.ok {
			t.Errorf("Valid(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
}

func TestFromMeta(t *testing.T) {
	if got := traceparent.FromMeta(map[string]any{"traceparent": good}); got != good {
		t.Fatalf("FromMeta = %q", got)
	}
	for _, m := range []map[string]any{nil, {"traceparent": 1}, {"traceparent": "junk\nline"}} {
		if got := traceparent.FromMeta(m); got != "" {
			t.Fatalf("FromMeta(%v) = %q, want empty", m, got)
		}
	}
}

// A record logged with the call's context carries its traceparent; one
// logged without it does not.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(traceparent.LogHandler(slog.NewTextHandler(&buf, nil))).With("plugin", "p")
	ctx := traceparent.NewContext(context.Background(), good)
	logger.InfoContext(ctx, "in the call")
	logger.Info("outside")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "traceparent="+good) || !strings.Contains(lines[0], "plugin=p") ||
		strings.Contains(lines[1], "traceparent") {
		t.Fatalf("log:\n%s", buf.String())
	}
	if traceparent.FromContext(traceparent.NewContext(context.Background(), "")) != "" {
		t.Fatal("an empty traceparent was stored")
	}
}
