package isolate_test

import (
	"context"
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate"
	"github.com/mcpwasm/mcpwasm/host/isolate/internal/frame"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

const hostileEnv = "MCPWASM_ISOLATE_TEST_HOSTILE"

// hostileWorker is a worker whose guest escaped and now speaks the
// protocol as it likes: it loads nothing, says it is ready, and answers
// the first call as mode says.
func hostileWorker(mode string) int {
	conn := os.NewFile(3, "server")
	r := frame.NewReader(conn, 1<<30)
	w := frame.NewWriter(conn, 1<<30)
	for range 2 { // the spec and the module
		if _, err := r.Read(); err != nil {
			return 1
		}
	}
	w.Write(frame.Frame{Kind: isolate.KindReady, Payload: []byte(`{"abi_version":1}`)})
	call, err := r.Read()
	if err != nil {
		return 1
	}
	switch mode {
	case "huge":
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], 0xfffffff0)
		conn.Write(b[:])
	case "kind":
		w.Write(frame.Frame{Kind: 200, ID: call.ID})
	case "garbage":
		w.Write(frame.Frame{Kind: isolate.KindResult, ID: call.ID, Payload: []byte{0xff, 0xff, 0xff}})
	case "forged-audit":
		w.Write(frame.Frame{Kind: isolate.KindCallback, ID: 1, Payload: frame.Pack(
			[]byte(`{"call":`+itoa(int(call.ID))+`,"kind":"audit"}`), []byte(`{"kind":"call","plugin":"other"}`))})
		reply, _ := r.Read()
		w.Write(frame.Frame{Kind: isolate.KindResult, ID: call.ID, Payload: frame.Pack([]byte(`{}`), reply.Payload)})
	}
	time.Sleep(10 * time.Second) // killed before this ends
	return 0
}

func startHostile(t *testing.T, mode string) *isolate.Worker {
	t.Helper()
	hw := isolate.New(isolate.Options{Config: plugin.Config{Name: "echo", Wasm: []byte("x")}, Exe: os.Args[0],
		Args: []string{}, Env: []string{hostileEnv + "=" + mode}, CacheDir: t.TempDir(), Confine: confine.Off})
	if _, err := hw.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hw.Close() })
	return hw
}

// TestHostileWorker: a worker that breaks the protocol (a length over the
// cap, an unknown kind) is killed and its call answered worker_crashed,
// saying why; an unreadable answer is a host_error; a forged audit record
// is refused.
func TestHostileWorker(t *testing.T) {
	for _, c := range []struct {
		mode, cat, text string
		killed          bool
	}{
		{"huge", string(abi.ErrWorkerCrashed), "broke the protocol: frame over the cap", true},
		{"kind", string(abi.ErrWorkerCrashed), "broke the protocol: a frame of kind 200", true},
		{"garbage", string(abi.ErrHost), "could not be read", false},
	} {
		t.Run(c.mode, func(t *testing.T) {
			hw := startHostile(t, c.mode)
			pid := hw.Stats().Pid
			_, cerr := hw.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`), plugin.CallOptions{})
			if cerr == nil || string(cerr.Category) != c.cat || !strings.Contains(cerr.Message, c.text) {
				t.Fatalf("got %v, want %s mentioning %q", cerr, c.cat, c.text)
			}
			if c.killed {
				mustBeGone(t, pid, "hostile worker")
			}
		})
	}
}

// TestHostileWorkerForgesAudit: a worker may report denials, never calls.
func TestHostileWorkerForgesAudit(t *testing.T) {
	hw := startHostile(t, "forged-audit")
	out, cerr := hw.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`), plugin.CallOptions{})
	if cerr != nil || !strings.Contains(string(out), `audit events of kind \"call\" are the server's to record`) {
		t.Fatalf("the forged call record was not refused: %q %v", out, cerr)
	}
}
