package server

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// go-sdk logs one WARN per session that a list_changed notification could
// not reach: a stateful HTTP session with no GET stream open, which most
// clients never open. A reload then logged a line per such session and
// per list (25 lines for 4 reloads, up to 1,000 per reload at the session
// cap). The handler go-sdk logs through folds them into one WARN per burst
// of changes (a reload), with the count; every other record passes.

// undeliveredWindow is how long after the first undelivered notice of a
// burst the one line is written: a reload's notices go out within go-sdk's
// 10 ms notification delay.
var undeliveredWindow = time.Second

var undeliveredNotice = regexp.MustCompile(`^calling (notifications/(tools|resources|prompts)/list_changed): .*(stream not connected|already closed)`)

// undeliveredLog counts undelivered list_changed notices per list.
type undeliveredLog struct {
	logger *slog.Logger // where the one line goes
	mu     sync.Mutex
	counts map[string]int // by list: tools, resources, prompts
}

// handler wraps h, the handler go-sdk would log through.
func (u *undeliveredLog) handler(h slog.Handler) slog.Handler { return undeliveredHandler{h, u} }

func (u *undeliveredLog) add(list string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.counts == nil {
		u.counts = map[string]int{}
		time.AfterFunc(undeliveredWindow, u.flush)
	}
	u.counts[list]++
}

// flush writes the burst's line: the sessions not told (the most of any
// list: each list's notice goes to every session) and the lists.
func (u *undeliveredLog) flush() {
	u.mu.Lock()
	counts := u.counts
	u.counts = nil
	u.mu.Unlock()
	sessions, lists := 0, make([]string, 0, len(counts))
	for l, n := range counts {
		sessions = max(sessions, n)
		lists = append(lists, l)
	}
	slices.Sort(lists)
	u.logger.Warn("list_changed not delivered to sessions with no stream open (no GET stream): they see the change at their next list",
		"sessions", sessions, "lists", strings.Join(lists, ","))
}

type undeliveredHandler struct {
	slog.Handler
	u *undeliveredLog
}

func (h undeliveredHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		if m := undeliveredNotice.FindStringSubmatch(r.Message); m != nil {
			h.u.add(m[2])
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h undeliveredHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return undeliveredHandler{h.Handler.WithAttrs(as), h.u}
}

func (h undeliveredHandler) WithGroup(name string) slog.Handler {
	return undeliveredHandler{h.Handler.WithGroup(name), h.u}
}
