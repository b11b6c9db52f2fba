package transport_test

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/host/server/internal/transport/stdiotest"
)

// FuzzStdio feeds arbitrary bytes to a stdio session after the handshake
// and checks: nothing panics, the session still answers a ping and
// tools/list afterwards, every line on stdout is a JSON-RPC 2.0 message, and
// the session ends when its input does (stdiotest.Session).
//
//	go test -run '^$' -fuzz FuzzStdio -fuzztime 10m -parallel 1 ./host/server/internal/transport/
func FuzzStdio(f *testing.F) {
	for _, c := range stdiotest.MalformedLines {
		f.Add([]byte(c.Line))
	}
	for _, s := range stdiotest.Seeds {
		f.Add([]byte(s))
	}
	e := newEchoServer(true)
	f.Fuzz(func(t *testing.T, data []byte) {
		stdiotest.Session(t, e.serve, data, "native_echo")
	})
}

// FuzzStdioStrings puts a fuzzed string into each slot of
// stdiotest.StringSlots (every method's names, URIs, cursors, arguments,
// levels, tokens and ids) and checks the session survives as FuzzStdio
// does. Package server's FuzzServerStrings does the same through its own
// handlers.
//
//	go test -run '^$' -fuzz FuzzStdioStrings -fuzztime 10m -parallel 1 ./host/server/internal/transport/
func FuzzStdioStrings(f *testing.F) {
	for i := range stdiotest.StringSlots {
		for _, s := range stdiotest.SlotSeeds {
			f.Add(uint8(i*2+1), s)
			f.Add(uint8(i*2), s)
		}
	}
	e := newEchoServer(true)
	f.Fuzz(func(t *testing.T, slot uint8, s string) {
		line, skip := stdiotest.SlotLine(slot, s)
		if skip {
			t.Skip("a raw line break splits the line; FuzzStdio covers broken lines")
		}
		stdiotest.Session(t, e.serve, []byte(line), "native_echo")
	})
}
