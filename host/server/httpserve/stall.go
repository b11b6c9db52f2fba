package httpserve

import (
	"net/http"
	"time"
)

// A client that stops reading a response (an SSE stream of progress, a GET
// stream) fills its socket, and the next write to it blocks: go-sdk writes
// a session's messages synchronously, from whoever sends them — a guest's
// notify_progress, a broadcast of resources/updated to every subscriber.
// No context interrupts a blocked write, so one client that never reads
// would hold a guest (and its concurrency slot) past the guest's timeout,
// or stall a broadcast for everyone, until it hangs up. The server has no
// WriteTimeout (it would cut long streams), so each write gets its own
// deadline instead: a write that cannot proceed for Options.WriteStall
// fails, go-sdk drops the stream, and the writer goes on.

// stallWriter sets a write deadline before each write and flush.
type stallWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

// stallGuard wraps w so that no write to the client blocks longer than
// stall; done clears the deadline for the connection's next request. A
// writer that cannot take deadlines (a test recorder) is returned as is.
func stallGuard(w http.ResponseWriter, stall time.Duration) (http.ResponseWriter, func()) {
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Time{}) != nil {
		return w, func() {}
	}
	return &stallWriter{ResponseWriter: w, rc: rc, stall: stall}, func() { rc.SetWriteDeadline(time.Time{}) }
}

func (s *stallWriter) Write(b []byte) (int, error) {
	s.rc.SetWriteDeadline(time.Now().Add(s.stall))
	return s.ResponseWriter.Write(b)
}

// FlushError is what http.ResponseController.Flush calls (go-sdk flushes
// after every SSE event).
func (s *stallWriter) FlushError() error {
	s.rc.SetWriteDeadline(time.Now().Add(s.stall))
	return s.rc.Flush()
}

// Flush is http.Flusher, for callers that assert it.
func (s *stallWriter) Flush() { s.FlushError() }

// Unwrap lets http.ResponseController reach the connection's other
// controls (read deadlines, full duplex).
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
