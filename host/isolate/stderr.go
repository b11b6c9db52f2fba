package isolate

import (
	"bytes"
	"io"
	"sync"
)

// maxLogLine clips a worker's stderr lines.
const maxLogLine = 4 << 10

// lineWriter passes a worker's stderr to w one line at a time, each line
// prefixed (so that a hostile worker cannot write a line that reads as
// the server's own) and clipped.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	buf    []byte
}

func newLineWriter(w io.Writer, prefix string) *lineWriter {
	return &lineWriter{w: w, prefix: []byte(prefix)}
}

// Write buffers p and writes every whole line in it.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) > maxLogLine { // a line that never ends
				l.emit(l.buf)
				l.buf = l.buf[:0]
			}
			return len(p), nil
		}
		l.emit(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

func (l *lineWriter) emit(line []byte) {
	if len(line) > maxLogLine {
		line = append(line[:maxLogLine:maxLogLine], "…"...)
	}
	out := make([]byte, 0, len(l.prefix)+len(line)+1)
	out = append(append(append(out, l.prefix...), line...), '\n')
	_, _ = l.w.Write(out)
}
