// Package frame is the wire format between mcpwasm and its plugin
// workers: length-prefixed frames with a cap, read from a peer that may be
// hostile (a worker whose guest escaped writes whatever it likes).
//
// A frame is a 4-byte big-endian length n, then n bytes: a kind byte, an
// 8-byte big-endian id and the payload. A length below the 9 header bytes
// or above the reader's cap is refused before anything is allocated.
package frame

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// HeaderLen is the size of a frame's fixed part after its length.
const HeaderLen = 9

// Frame is one message.
type Frame struct {
	Kind    byte
	ID      uint64
	Payload []byte
}

// ErrTooLarge is a frame longer than the reader's cap.
var ErrTooLarge = errors.New("frame over the cap")

// ErrMalformed is a frame whose length cannot hold its header.
var ErrMalformed = errors.New("malformed frame")

// Reader reads frames of at most Max bytes each.
type Reader struct {
	r   *bufio.Reader
	max int
}

// NewReader reads frames from r; a frame longer than max bytes (kind, id
// and payload) is an error wrapping ErrTooLarge.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Read returns the next frame. io.EOF means the peer closed between
// frames; a frame cut short is io.ErrUnexpectedEOF. After any other error
// the stream is out of step and must be dropped.
func (r *Reader) Read() (Frame, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r.r, lb[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Frame{}, fmt.Errorf("frame length cut short: %w", err)
		}
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(lb[:])
	if n < HeaderLen {
		return Frame{}, fmt.Errorf("%w: length %d is shorter than the %d-byte header", ErrMalformed, n, HeaderLen)
	}
	if uint64(n) > uint64(r.max) {
		return Frame{}, fmt.Errorf("%w: %d bytes, the cap is %d", ErrTooLarge, n, r.max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, fmt.Errorf("frame of %d bytes cut short: %w", n, err)
	}
	return Frame{Kind: buf[0], ID: binary.BigEndian.Uint64(buf[1:9]), Payload: buf[9:]}, nil
}

// Writer writes whole frames; it is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	max int
}

// NewWriter writes frames to w, refusing any longer than max bytes (the
// peer would refuse it).
func NewWriter(w io.Writer, max int) *Writer { return &Writer{w: w, max: max} }

// Write sends f in one piece.
func (w *Writer) Write(f Frame) error {
	n := HeaderLen + len(f.Payload)
	if n > w.max {
		return fmt.Errorf("%w: %d bytes, the cap is %d", ErrTooLarge, n, w.max)
	}
	buf := make([]byte, 4+n)
	binary.BigEndian.PutUint32(buf, uint32(n))
	buf[4] = f.Kind
	binary.BigEndian.PutUint64(buf[5:13], f.ID)
	copy(buf[13:], f.Payload)
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.w.Write(buf)
	return err
}

// Pack joins a small JSON header and raw bytes into one payload: the
// header's length as a uvarint, the header, the bytes. Bulk data (inputs,
// outputs, the module) stays out of JSON.
func Pack(header, raw []byte) []byte {
	out := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(header)+len(raw)), uint64(len(header)))
	out = append(out, header...)
	return append(out, raw...)
}

// Unpack splits a payload made by Pack.
func Unpack(p []byte) (header, raw []byte, err error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, fmt.Errorf("%w: payload header length does not fit the payload", ErrMalformed)
	}
	return p[k : k+int(n)], p[k+int(n):], nil
}
