package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/audit"
)

func TestRecordWritesOneLinePerEvent(t *testing.T) {
	var buf bytes.Buffer
	l := audit.New(&buf, false)
	ctx := audit.WithLog(context.Background(), l)
	audit.FromContext(ctx).Record(audit.Event{Kind: audit.KindCall, Tool: "echo", Outcome: "ok",
		Arguments: json.RawMessage(`{"secret":1}`)})
	audit.FromContext(ctx).Record(audit.Event{Kind: audit.KindDenial, Denial: audit.DenyNet, Reason: "private address"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", buf.String())
	}
	var e audit.Event
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	if e.Tool != "echo" || e.Time.IsZero() || e.Arguments != nil {
		t.Fatalf("call event %+v: want tool, time set, no arguments", e)
	}
	if !strings.Contains(lines[1], `"denial":"net"`) {
		t.Fatalf("denial line %s", lines[1])
	}
}

func TestArgumentsKeptOnlyWhenAsked(t *testing.T) {
	var buf bytes.Buffer
	audit.New(&buf, true).Record(audit.Event{Kind: audit.KindCall, Arguments: json.RawMessage(`{"a":1}`)})
	if !strings.Contains(buf.String(), `"arguments":{"a":1}`) {
		t.Fatalf("arguments dropped: %s", buf.String())
	}
}

func TestNilLogDrops(t *testing.T) {
	audit.FromContext(context.Background()).Record(audit.Event{Kind: audit.KindCall}) // must not panic
}

func TestObserversSeeEveryEventWithoutAFile(t *testing.T) {
	l := audit.New(nil, false)
	var seen []string
	l.Observe(func(e audit.Event) { seen = append(seen, e.Denial) })
	l.Record(audit.Event{Kind: audit.KindDenial, Denial: audit.DenyAuth})
	l.Record(audit.Event{Kind: audit.KindDenial, Denial: audit.DenyRateLimit})
	if strings.Join(seen, ",") != "auth,rate_limit" {
		t.Fatalf("observers saw %v", seen)
	}
}
