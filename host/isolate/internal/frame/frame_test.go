package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, 1<<10)
	for i, f := range []Frame{{Kind: 1, ID: 7, Payload: []byte("hello")}, {Kind: 2, ID: 1 << 60}} {
		if err := w.Write(f); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	r := NewReader(&b, 1<<10)
	f, err := r.Read()
	if err != nil || f.Kind != 1 || f.ID != 7 || string(f.Payload) != "hello" {
		t.Fatalf("first frame: %+v %v", f, err)
	}
	f, err = r.Read()
	if err != nil || f.Kind != 2 || f.ID != 1<<60 || len(f.Payload) != 0 {
		t.Fatalf("second frame: %+v %v", f, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func raw(n uint32, rest ...byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, n)
	return append(b, rest...)
}

// TestHostileFrames: what a compromised worker may send gets a clear
// error, and a huge length allocates nothing.
func TestHostileFrames(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want error
		text string
	}{
		{"over the cap", raw(0xffffffff), ErrTooLarge, "4294967295 bytes, the cap is 64"},
		{"just over the cap", raw(65), ErrTooLarge, "65 bytes"},
		{"shorter than its header", raw(3, 1, 2, 3), ErrMalformed, "shorter than the 9-byte header"},
		{"cut short", raw(20, 1, 2, 3), io.ErrUnexpectedEOF, "frame of 20 bytes cut short"},
		{"length cut short", []byte{0, 0}, io.ErrUnexpectedEOF, "frame length cut short"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(c.in), 64).Read()
			if !errors.Is(err, c.want) || !bytes.Contains([]byte(err.Error()), []byte(c.text)) {
				t.Fatalf("got %v, want %v mentioning %q", err, c.want, c.text)
			}
		})
	}
	if err := NewWriter(io.Discard, 16).Write(Frame{Payload: make([]byte, 8)}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("writer over its cap: %v", err)
	}
}

func TestPack(t *testing.T) {
	h, r, err := Unpack(Pack([]byte(`{"a":1}`), []byte("raw")))
	if err != nil || string(h) != `{"a":1}` || string(r) != "raw" {
		t.Fatalf("%q %q %v", h, r, err)
	}
	for _, bad := range [][]byte{nil, {0x80}, {5, 'a'}, binary.AppendUvarint(nil, 1<<62)} {
		if _, _, err := Unpack(bad); !errors.Is(err, ErrMalformed) {
			t.Fatalf("Unpack(%x): %v, want ErrMalformed", bad, err)
		}
	}
}
