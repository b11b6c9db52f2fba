package server

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer = fixture.Buffer

// TestUndeliveredFolded: go-sdk's WARN per session a list_changed could not
// reach (its exact text) becomes one WARN per burst with the count of
// sessions and the lists; other records, other warnings included, pass
// through unchanged.
func TestUndeliveredFolded(t *testing.T) {
	defer func(w time.Duration) { undeliveredWindow = w }(undeliveredWindow)
	undeliveredWindow = 50 * time.Millisecond
	var out lockedBuffer
	logger := slog.New(slog.NewTextHandler(&out, nil))
	sdk := slog.New((&undeliveredLog{logger: logger}).handler(logger.Handler())).With("k", "v")
	const notice = "calling notifications/%s/list_changed: rejected by transport: undelivered message: stream not connected or already closed"
	burst := func(sessions int, lists ...string) {
		for i := 0; i < sessions; i++ {
			for _, l := range lists {
				sdk.Warn(strings.Replace(notice, "%s", l, 1))
			}
		}
	}
	burst(25, "tools", "prompts")
	sdk.Warn("calling notifications/message: some other failure")
	sdk.Info("server session connected")
	time.Sleep(300 * time.Millisecond)
	burst(7, "tools")
	time.Sleep(300 * time.Millisecond)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var folded []string
	for _, l := range lines {
		if strings.Contains(l, "undelivered message") {
			t.Errorf("a per-session notice got through: %s", l)
		}
		if strings.Contains(l, "list_changed not delivered") {
			folded = append(folded, l)
		}
	}
	if len(folded) != 2 || !strings.Contains(folded[0], "sessions=25 lists=prompts,tools") || !strings.Contains(folded[1], "sessions=7 lists=tools") {
		t.Fatalf("want one line per burst with its count, got:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "some other failure") || !strings.Contains(out.String(), `msg="server session connected" k=v`) {
		t.Fatalf("other records were dropped:\n%s", out.String())
	}
}
