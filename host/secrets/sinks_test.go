package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestSinks(t *testing.T) {
	k := &Known{}
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&buf, nil), k))
	log.Info("before", "v", "tok-123456789")
	if !strings.Contains(buf.String(), "tok-123456789") {
		t.Fatal("no secrets known yet, yet the value was changed")
	}
	k.Set([]string{"tok-123456789"})
	buf.Reset()
	log.With("pre", "x tok-123456789").Info("msg tok-123456789", "s", "tok-123456789", "err", errors.New("bad token tok-123456789"),
		slog.Group("g", "in", "tok-123456789"), "any", fmt.Sprintf("%q", "tok-123456789"))
	if strings.Contains(buf.String(), "tok-123456789") || strings.Count(buf.String(), Marker) != 6 {
		t.Fatalf("log: %s", buf.String())
	}
	buf.Reset()
	w := Writer(&buf, k)
	if n, err := w.Write([]byte(`{"reason":"tok-123456789"}` + "\n")); err != nil || n != 27 {
		t.Fatalf("write %d %v", n, err)
	}
	if buf.String() != `{"reason":"[REDACTED]"}`+"\n" {
		t.Fatalf("audit line %q", buf.String())
	}
}
