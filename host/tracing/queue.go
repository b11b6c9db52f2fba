package tracing

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queue is the span processor between the calls and the exporter: a
// bounded channel that a span enters without waiting (or is dropped,
// counted), and one goroutine that exports batches. The SDK's batch
// processor does the same but keeps its drop count to itself; /metrics
// needs it.
type queue struct {
	exp     sdktrace.SpanExporter
	ch      chan sdktrace.ReadOnlySpan
	batch   int
	delay   time.Duration
	timeout time.Duration
	logger  *slog.Logger

	flush    chan chan struct{}
	stop     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	stopCtx  context.Context // bounds the exports of a Shutdown

	lastLog atomic.Int64 // unix nanoseconds of the last export failure logged
}

// Stats counts spans since the process started, across Setups.
type Stats struct {
	// Exported spans reached the collector.
	Exported uint64
	// Dropped spans found the queue full.
	Dropped uint64
	// Failed spans were in a batch the collector did not take (refused,
	// unreachable, or too slow).
	Failed uint64
}

var exported, dropped, failed atomic.Uint64

// ReadStats returns the span counts.
func ReadStats() Stats {
	return Stats{Exported: exported.Load(), Dropped: dropped.Load(), Failed: failed.Load()}
}

// logEvery rate-limits export failure logs.
const logEvery = time.Minute

func newQueue(exp sdktrace.SpanExporter, size, batch int, delay, timeout time.Duration, logger *slog.Logger) *queue {
	q := &queue{exp: exp, ch: make(chan sdktrace.ReadOnlySpan, size), batch: max(batch, 1), delay: delay,
		timeout: timeout, logger: logger, flush: make(chan chan struct{}), stop: make(chan struct{}),
		stopped: make(chan struct{}), stopCtx: context.Background()}
	go q.run()
	return q
}

// OnStart does nothing: only ended spans are exported.
func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops it if the queue is full. It never
// blocks.
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case <-q.stop:
		dropped.Add(1)
		return
	default:
	}
	select {
	case q.ch <- s:
	default:
		dropped.Add(1)
	}
}

func (q *queue) run() {
	defer close(q.stopped)
	buf := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	t := time.NewTimer(q.delay)
	defer t.Stop()
	send := func(ctx context.Context) {
		if len(buf) > 0 {
			q.export(ctx, buf)
			clear(buf)
			buf = buf[:0]
		}
	}
	drain := func(ctx context.Context) {
		for {
			select {
			case s := <-q.ch:
				if buf = append(buf, s); len(buf) >= q.batch {
					send(ctx)
				}
			default:
				send(ctx)
				return
			}
		}
	}
	for {
		select {
		case s := <-q.ch:
			if buf = append(buf, s); len(buf) >= q.batch {
				send(context.Background())
			}
		case <-t.C:
			send(context.Background())
			t.Reset(q.delay)
		case done := <-q.flush:
			drain(context.Background())
			close(done)
		case <-q.stop:
			drain(q.stopCtx)
			return
		}
	}
}

func (q *queue) export(parent context.Context, spans []sdktrace.ReadOnlySpan) {
	ctx, cancel := context.WithTimeout(parent, q.timeout)
	defer cancel()
	if err := q.exp.ExportSpans(ctx, spans); err != nil {
		failed.Add(uint64(len(spans)))
		now := time.Now().UnixNano()
		if last := q.lastLog.Load(); now-last >= int64(logEvery) && q.lastLog.CompareAndSwap(last, now) {
			q.logger.Warn("trace export failed: spans lost (counted in mcpwasm_trace_spans_lost_total; this is logged at most once a minute)",
				"spans", len(spans), "err", err)
		}
		return
	}
	exported.Add(uint64(len(spans)))
}

// ForceFlush exports what is queued.
func (q *queue) ForceFlush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case q.flush <- done:
	case <-q.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued, within ctx, and closes the exporter.
func (q *queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() {
		q.stopCtx = ctx
		close(q.stop)
	})
	select {
	case <-q.stopped:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exp.Shutdown(ctx)
}
