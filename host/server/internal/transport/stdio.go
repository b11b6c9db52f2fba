package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioOptions configures Stdio (the server's ServeStdio).
type StdioOptions struct {
	// In and Out are the client's streams, os.Stdin and os.Stdout by
	// default. The command passes a private copy of stdout, so that nothing
	// else in the process can write into the stream.
	In  io.Reader
	Out io.Writer
	// MaxLineBytes bounds one line from the client (default 16 MiB, go-sdk's
	// DefaultMaxLineLength). A longer line is skipped without being held in
	// memory whole, and answered with an error.
	MaxLineBytes int
	// DrainTimeout bounds how long the requests still in flight when In
	// ends may take to be answered before ServeStdio returns (default 10s).
	DrainTimeout time.Duration
	// MaxInFlight bounds the requests read and not yet answered (default
	// 256), and MaxInFlightBytes their lines' bytes together (default 64
	// MiB); a request past either is answered at once with a -32000
	// "busy" error and not run. Without them a client could queue
	// requests (each up to MaxLineBytes, each with its goroutine) faster
	// than calls end.
	MaxInFlight      int
	MaxInFlightBytes int64
}

// Defaults of StdioOptions' bounds on requests in flight.
const (
	DefaultMaxInFlight      = 256
	DefaultMaxInFlightBytes = 64 << 20
)

// Stdio returns the stdio transport: o's streams, diagnostics to logger.
func Stdio(o StdioOptions, logger *slog.Logger) mcp.Transport {
	return &stdioTransport{opts: o, logger: logger}
}

// ServeStdio serves srv to one client on o's streams until the input ends
// or ctx ends, every error answered with a code (WithCodes). The end of
// input, or of ctx, is not an error.
func ServeStdio(ctx context.Context, srv *mcp.Server, o StdioOptions, logger *slog.Logger) error {
	err := srv.Run(ctx, WithCodes(Stdio(o, logger)))
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// stdioTransport is go-sdk's newline-delimited stream transport with every
// line checked before go-sdk reads it (see stdio_check.go), client ids go-sdk
// would alter mapped and given back as sent, and an end of input that waits
// for the replies to the requests in flight.
type stdioTransport struct {
	opts   StdioOptions
	logger *slog.Logger
}

// Connect implements mcp.Transport.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	o := t.opts
	if o.In == nil {
		o.In = os.Stdin
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = mcp.DefaultMaxLineLength
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 10 * time.Second
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxInFlightBytes <= 0 {
		o.MaxInFlightBytes = DefaultMaxInFlightBytes
	}
	c := &stdioConn{
		opts:     o,
		logger:   t.logger,
		incoming: make(chan jsonrpc.Message),
		eof:      make(chan struct{}),
		closed:   make(chan struct{}),
		broken:   make(chan struct{}),
		inflight: map[jsonrpc.ID]*flight{},
		byRaw:    map[string]jsonrpc.ID{},
	}
	go c.readLoop()
	return c, nil
}

// flight is a request from the client not yet answered.
type flight struct {
	raw    json.RawMessage // the client's id, when go-sdk sees an internal one
	method string
	batch  *stdioBatch
	bytes  int64 // the request's line (or batch element), counted in flightBytes
}

// stdioBatch collects the replies to one JSON-RPC batch.
type stdioBatch struct {
	parts   [][]byte
	pending int  // calls not yet answered
	sealed  bool // every element has been read
}

// stdioConn implements mcp.Connection over a checked line stream.
type stdioConn struct {
	opts   StdioOptions
	logger *slog.Logger

	incoming chan jsonrpc.Message // from readLoop to Read
	eof      chan struct{}        // closed once input ended and in-flight requests drained
	readErr  error                // set before eof is closed
	closed   chan struct{}
	broken   chan struct{} // closed when a write to Out fails
	close1   sync.Once
	broke1   sync.Once

	writeMu sync.Mutex // one line at a time on Out, from go-sdk and from the checks

	mu          sync.Mutex
	inflight    map[jsonrpc.ID]*flight // by the id go-sdk sees
	byRaw       map[string]jsonrpc.ID  // mapped ids: the client's id → the internal one
	seq         uint64
	pending     int           // requests read and not yet answered
	flightBytes int64         // their lines' bytes together
	drained     chan struct{} // closed when pending reaches 0, while draining
	protocol    string        // negotiated, learned from the initialize reply
}

// SessionID implements mcp.Connection.
func (c *stdioConn) SessionID() string { return "" }

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.eof:
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

// Close implements mcp.Connection. It closes In, which ends a blocked read
// of a pipe or terminal.
func (c *stdioConn) Close() error {
	var err error
	c.close1.Do(func() {
		close(c.closed)
		if cl, ok := c.opts.In.(io.Closer); ok {
			err = cl.Close()
		}
	})
	return err
}

// Write implements mcp.Connection: go-sdk's messages, each on one line. A
// reply to a mapped id carries the client's id again.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeLine(data)
	}
	c.mu.Lock()
	f := c.inflight[resp.ID]
	if f == nil {
		c.mu.Unlock()
		return c.writeLine(data)
	}
	// Forget the id before the reply leaves: the client may reuse it as
	// soon as it reads the reply.
	delete(c.inflight, resp.ID)
	c.flightBytes -= f.bytes
	if f.raw != nil {
		delete(c.byRaw, string(f.raw))
		data = withID(data, resp.ID, f.raw)
	}
	if f.method == "initialize" && resp.Error == nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			c.protocol = r.ProtocolVersion
		}
	}
	if b := f.batch; b != nil {
		b.parts = append(b.parts, data)
		b.pending--
		data = nil
		if b.sealed && b.pending == 0 {
			data = joinBatch(b.parts)
		}
	}
	c.mu.Unlock()
	if data != nil {
		err = c.writeLine(data)
	}
	c.answered()
	return err
}

// answered counts one request answered, and ends a drain at zero.
func (c *stdioConn) answered() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending--
	if c.pending == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// writeLine writes data and a newline in one write, serialised with every
// other write.
func (c *stdioConn) writeLine(data []byte) error {
	line := make([]byte, 0, len(data)+1)
	line = append(append(line, data...), '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.opts.Out.Write(line); err != nil {
		c.broke1.Do(func() { close(c.broken) })
		return err
	}
	return nil
}

// withID replaces the internal id at the head of go-sdk's encoding of a
// response ({"jsonrpc":"2.0","id":…) by the client's raw id.
func withID(data []byte, id jsonrpc.ID, raw json.RawMessage) []byte {
	enc, _ := marshalNoEscape(id.Raw())
	head := append([]byte(`{"jsonrpc":"2.0","id":`), enc...)
	if bytes.HasPrefix(data, head) {
		return append(append(append([]byte{}, `{"jsonrpc":"2.0","id":`...), raw...), data[len(head):]...)
	}
	// Not go-sdk v1.8.0's field order: rewrite the object.
	ms, err := parseObject(data)
	if err != nil {
		return data
	}
	return rebuild(ms, "id", raw)
}

func joinBatch(parts [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

// readLoop reads lines until In ends, checks each, and hands the messages to
// Read. At the end of input it waits for the replies to the requests in
// flight (at most DrainTimeout) before Read reports the end: go-sdk drops
// every reply not yet written once its reader has stopped.
func (c *stdioConn) readLoop() {
	br := bufio.NewReaderSize(c.opts.In, 64<<10)
	var err error
	for n := 1; err == nil; n++ {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(br, c.opts.MaxLineBytes)
		if tooLong {
			c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("stdin line %d is longer than the limit of %d bytes; it was skipped", n, c.opts.MaxLineBytes))
			continue
		}
		if len(bytes.Trim(line, " \t\r")) == 0 { // blank: JSON whitespace only
			continue
		}
		if !c.handleLine(line, n) {
			return
		}
	}
	if errors.Is(err, io.EOF) {
		err = io.EOF
	} else {
		c.logger.Warn("stdio: reading stdin failed", "err", err)
	}
	c.drain()
	c.readErr = err
	close(c.eof)
}

// drain waits until every request read has been answered, the drain time
// is up, Out is broken, or the connection is closed.
func (c *stdioConn) drain() {
	c.mu.Lock()
	n := c.pending
	done := make(chan struct{})
	if n > 0 {
		c.drained = done
	}
	c.mu.Unlock()
	if n == 0 {
		return
	}
	c.logger.Info("stdin closed: answering the requests in flight", "requests", n)
	t := time.NewTimer(c.opts.DrainTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.mu.Lock()
		n = c.pending
		c.mu.Unlock()
		c.logger.Warn("stdin closed: requests left unanswered", "requests", n, "waited", c.opts.DrainTimeout)
	case <-c.broken:
	case <-c.closed:
	}
}

// readLine reads one line without its newline. A line longer than max is
// read to its end and dropped: tooLong reports it.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > max {
			return nil, true, err
		}
		return line, false, err
	}
}

// reject writes an error reply of the transport's own and logs it.
func (c *stdioConn) reject(id json.RawMessage, code int, msg string) {
	c.logger.Warn("stdio: refused a message", "code", code, "err", msg)
	c.writeLine(errorReply(id, code, msg))
}

// deliver hands msg to go-sdk; false when the connection closed first.
func (c *stdioConn) deliver(msg jsonrpc.Message) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	}
}
